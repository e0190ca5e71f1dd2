package org.fleetpipe.teltonika.simulator.cli;

import org.fleetpipe.teltonika.codec.CodecId;

/** The {@code --codec} choice: one codec for every device, or the three in turn. */
public enum CodecChoice {
    CODEC_8("8"),
    CODEC_8E("8E"),
    CODEC_16("16"),
    MIXED("mixed");

    private static final CodecId[] MIX = {CodecId.CODEC_8, CodecId.CODEC_8E, CodecId.CODEC_16};

    private final String text;

    CodecChoice(String text) {
        this.text = text;
    }

    /** Parses {@code 8}, {@code 8E}, {@code 16} or {@code mixed} (case-insensitive); null when none matches. */
    public static CodecChoice parse(String text) {
        for (CodecChoice c : values()) {
            if (c.text.equalsIgnoreCase(text.trim())) {
                return c;
            }
        }
        return null;
    }

    /** The codec device {@code index} speaks; a real device sticks to the one it is configured for. */
    public CodecId forDevice(int index) {
        return switch (this) {
            case CODEC_8 -> CodecId.CODEC_8;
            case CODEC_8E -> CodecId.CODEC_8E;
            case CODEC_16 -> CodecId.CODEC_16;
            case MIXED -> MIX[index % MIX.length];
        };
    }

    @Override
    public String toString() {
        return text;
    }
}
