package org.fleetpipe.teltonika.codec.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.HexFormat;

/** Hex text to buffers and back, for fixtures. */
public final class Hex {

    private Hex() {
    }

    /** Whitespace and {@code #} comments to the end of a line are ignored, so fixtures can be annotated. */
    public static byte[] bytes(String hex) {
        StringBuilder clean = new StringBuilder();
        for (String line : hex.split("\n")) {
            int hash = line.indexOf('#');
            clean.append((hash >= 0 ? line.substring(0, hash) : line).replaceAll("\\s+", ""));
        }
        return HexFormat.of().parseHex(clean.toString());
    }

    /** An unpooled buffer the caller owns. */
    public static ByteBuf buf(String hex) {
        return Unpooled.wrappedBuffer(bytes(hex));
    }

    public static String of(ByteBuf buf) {
        return ByteBufUtil.hexDump(buf).toUpperCase();
    }

    public static String of(byte[] bytes) {
        return HexFormat.of().withUpperCase().formatHex(bytes);
    }
}
