package org.fleetpipe.teltonika.codec.avl;

import org.fleetpipe.teltonika.codec.CodecId;

/**
 * Field widths that distinguish Codec 8, 8E and 16. The three codecs differ only in these
 * numbers, so one reader and one writer driven by this table replace three near-copies.
 */
enum RecordLayout {
    //        event id, generation, total count, group count, io id, variable group
    CODEC_8(1, false, 1, 1, 1, false),
    CODEC_8E(2, false, 2, 2, 2, true),
    CODEC_16(2, true, 1, 1, 2, false);

    /** timestamp 8 + priority 1 + GPS 15. */
    static final int HEADER_BYTES = 24;

    final int eventIdWidth;
    final boolean generationType;
    final int totalCountWidth;
    final int groupCountWidth;
    final int ioIdWidth;
    final boolean variableGroup;
    /** Smallest possible record: no IO elements at all. */
    final int minRecordBytes;

    RecordLayout(int eventIdWidth, boolean generationType, int totalCountWidth, int groupCountWidth, int ioIdWidth,
                 boolean variableGroup) {
        this.eventIdWidth = eventIdWidth;
        this.generationType = generationType;
        this.totalCountWidth = totalCountWidth;
        this.groupCountWidth = groupCountWidth;
        this.ioIdWidth = ioIdWidth;
        this.variableGroup = variableGroup;
        this.minRecordBytes = HEADER_BYTES + eventIdWidth + (generationType ? 1 : 0) + totalCountWidth
                + groupCountWidth * (variableGroup ? 5 : 4);
    }

    static RecordLayout of(CodecId codec) {
        return switch (codec) {
            case CODEC_8 -> CODEC_8;
            case CODEC_8E -> CODEC_8E;
            case CODEC_16 -> CODEC_16;
            default -> throw new IllegalArgumentException("not an AVL codec: " + codec);
        };
    }

    int maxUnsigned(int width) {
        return width == 1 ? 0xFF : 0xFFFF;
    }
}
