package org.fleetpipe.teltonika.benchmarks;

import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;

/** The packets the benchmarks read: realistic, from a fixed seed per codec, so every run reads the same bytes. */
final class BenchmarkPackets {

    private BenchmarkPackets() {
    }

    /** The codec of a wire label: 8, 8E or 16. */
    static CodecId codec(String label) {
        return switch (label) {
            case "8" -> CodecId.CODEC_8;
            case "8E" -> CodecId.CODEC_8E;
            case "16" -> CodecId.CODEC_16;
            default -> throw new IllegalArgumentException("codec " + label);
        };
    }

    static AvlPacket realistic(CodecId codec, int records) {
        return new RandomAvl(0x7E17_0000L + codec.wire()).realistic().packet(codec, records);
    }
}
