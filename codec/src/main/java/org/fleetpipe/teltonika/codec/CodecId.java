package org.fleetpipe.teltonika.codec;

/** Teltonika codec ids as they appear on the wire, with the label the telemetry contract uses. */
public enum CodecId {
    CODEC_8(0x08, "8", true),
    CODEC_8E(0x8E, "8E", true),
    CODEC_16(0x10, "16", true),
    CODEC_12(0x0C, "12", false),
    CODEC_13(0x0D, "13", false),
    CODEC_14(0x0E, "14", false),
    /** FMX6 RS232 modes: a device's text with its timestamp and IMEI (Teltonika's wiki; not in PROTOCOL.md). */
    CODEC_15(0x0F, "15", false);

    private static final CodecId[] BY_WIRE = new CodecId[256];

    static {
        for (CodecId id : values()) {
            BY_WIRE[id.wire] = id;
        }
    }

    private final int wire;
    private final String label;
    private final boolean avl;

    CodecId(int wire, String label, boolean avl) {
        this.wire = wire;
        this.label = label;
        this.avl = avl;
    }

    /** The codec for a wire byte, or an {@code UNKNOWN_CODEC} exception. */
    public static CodecId fromWire(int wire) {
        CodecId id = (wire & ~0xFF) == 0 ? BY_WIRE[wire] : null;
        if (id == null) {
            throw new CodecException(CodecException.Reason.UNKNOWN_CODEC,
                    String.format("codec id 0x%02X", wire & 0xFF));
        }
        return id;
    }

    public int wire() {
        return wire;
    }

    /** {@code "8"}, {@code "8E"}, {@code "16"}, ... */
    public String label() {
        return label;
    }

    /** True for codecs that carry AVL records (8, 8E, 16). */
    public boolean isAvl() {
        return avl;
    }
}
