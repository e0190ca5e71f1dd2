package org.fleetpipe.teltonika.server.warmup;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.codec.Acks;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketEncoder;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.IoElement;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameEncoder;

/**
 * What the warm-up's synthetic devices send, as frame bytes: a login per IMEI, AVL packets of the
 * three codecs with 1 to 25 records and the IO widths trackers use (Codec 8E with an NX value too),
 * and Codec 12 answers. Built once with the codec's own encoders.
 */
final class SyntheticTraffic {

    /** A made-up TAC: the warm-up's IMEIs are never stored anywhere. */
    private static final String IMEI_PREFIX = "35209300";
    private static final int[] RECORDS = {1, 5, 10, 25};
    private static final long START_MILLIS = 1_764_000_000_000L;

    private final List<byte[]> packets = new ArrayList<>();
    private final List<Integer> recordCounts = new ArrayList<>();
    private final byte[] commandAnswer;

    SyntheticTraffic() {
        for (CodecId codec : List.of(CodecId.CODEC_8, CodecId.CODEC_8E, CodecId.CODEC_16)) {
            for (int n : RECORDS) {
                packets.add(encode(out -> AvlPacketEncoder.writeTcpFrame(out, packet(codec, n))));
                recordCounts.add(n);
            }
        }
        commandAnswer = encode(out -> CommandFrameEncoder.writeTcpFrame(out, new CommandFrame(CodecId.CODEC_12,
                CommandFrame.TYPE_RESPONSE, null, -1, "Data Link: 1 GPRS: 1 Phone: 0 SIM: 0 OP: 24602"
                .getBytes(StandardCharsets.US_ASCII))));
    }

    /** The {@code n}th IMEI of the warm-up, check digit included. */
    static String imei(int n) {
        String body = IMEI_PREFIX + String.format("%06d", n % 1_000_000);
        for (int check = 0; check <= 9; check++) {
            if (Imei.luhnValid(body + check)) {
                return body + check;
            }
        }
        throw new IllegalStateException("no check digit for " + body);
    }

    static byte[] login(String imei) {
        return encode(out -> Acks.writeLoginRequest(out, imei));
    }

    int packetKinds() {
        return packets.size();
    }

    byte[] packet(int kind) {
        return packets.get(kind);
    }

    int records(int kind) {
        return recordCounts.get(kind);
    }

    byte[] commandAnswer() {
        return commandAnswer;
    }

    private static AvlPacket packet(CodecId codec, int records) {
        List<AvlRecord> list = new ArrayList<>(records);
        for (int i = 0; i < records; i++) {
            GpsElement gps = new GpsElement(252_796_514 + i * 37, 546_871_555 - i * 29, (short) (112 + i), (i * 15) % 360,
                    9 + i % 6, i % 90);
            List<IoElement> io = new ArrayList<>();
            io.add(new IoElement.Fixed(239, 1, i % 2));
            io.add(new IoElement.Fixed(240, 1, 1));
            io.add(new IoElement.Fixed(21, 1, 4));
            io.add(new IoElement.Fixed(66, 2, 13_903 + i));
            io.add(new IoElement.Fixed(67, 2, 3_946));
            io.add(new IoElement.Fixed(16, 4, 45_325_566L + i * 100));
            io.add(new IoElement.Fixed(11, 8, 8_937_060_100_001_234_567L % Long.MAX_VALUE));
            if (codec == CodecId.CODEC_8E) {
                io.add(new IoElement.Variable(385, new byte[] {0x01, 0x02, 0x03, 0x04, 0x05, 0x06}));
            }
            int generation = codec == CodecId.CODEC_16 ? i % 8 : AvlRecord.NO_GENERATION;
            list.add(new AvlRecord(START_MILLIS + i * 1_000L, i % 3, gps, i % 2 == 0 ? 0 : 239, generation, io));
        }
        return new AvlPacket(codec, list);
    }

    private static byte[] encode(Consumer<ByteBuf> writer) {
        ByteBuf out = Unpooled.buffer();
        try {
            writer.accept(out);
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            return bytes;
        } finally {
            out.release();
        }
    }
}
