package org.fleetpipe.teltonika.server.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.fleetpipe.teltonika.server.ingest.FrameDeadLetters;

/** Keeps each dead letter with its bytes copied out as hex, since the buffer is not ours to keep. */
public final class RecordingDeadLetters implements FrameDeadLetters {

    /** One recorded frame; {@code hex} is uppercase like {@code Hex.of}. */
    public record Letter(String imei, String reason, String detail, String hex) {
    }

    private final List<Letter> letters = new CopyOnWriteArrayList<>();

    @Override
    public void record(String imei, String reason, String detail, ByteBuf bytes) {
        letters.add(new Letter(imei, reason, detail, ByteBufUtil.hexDump(bytes).toUpperCase()));
    }

    public List<Letter> letters() {
        return List.copyOf(letters);
    }
}
