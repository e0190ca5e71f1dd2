package org.fleetpipe.teltonika.codec;

/** The only exception the codec throws: a reason a caller can switch on, plus a detail for logs. */
public final class CodecException extends RuntimeException {

    /** Why bytes from a device were refused. */
    public enum Reason {
        FRAME_TOO_LARGE("frame-too-large"),
        BAD_LENGTH("bad-length"),
        BAD_PREAMBLE("bad-preamble"),
        BAD_LOGIN("bad-login"),
        BAD_CRC("bad-crc"),
        UNKNOWN_CODEC("unknown-codec"),
        RECORD_COUNT_MISMATCH("record-count-mismatch"),
        IO_COUNT_MISMATCH("io-count-mismatch"),
        TRUNCATED("truncated"),
        TRAILING_BYTES("trailing-bytes"),
        LIMIT_EXCEEDED("limit-exceeded"),
        BAD_COMMAND_FRAME("bad-command-frame"),
        IMEI_LENGTH("imei-length"),
        IMEI_NOT_DIGITS("imei-not-digits"),
        IMEI_CHECK_DIGIT("imei-check-digit");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        /** Stable lowercase label for metrics tags, logs and dead letters. */
        public String label() {
            return label;
        }

        /** True for the three ways an IMEI text can be malformed. */
        public boolean isImeiProblem() {
            return this == IMEI_LENGTH || this == IMEI_NOT_DIGITS || this == IMEI_CHECK_DIGIT;
        }
    }

    private final Reason reason;

    public CodecException(Reason reason, String detail) {
        // Stack traces are noise here: the reason and detail say everything, and devices can send
        // garbage at a high rate.
        super(reason.label() + ": " + detail, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
