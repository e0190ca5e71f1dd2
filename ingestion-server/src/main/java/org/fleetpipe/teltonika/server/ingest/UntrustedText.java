package org.fleetpipe.teltonika.server.ingest;

/**
 * Text a client sent that failed validation, made safe for a log line or a stored entry: printable
 * ASCII kept, every other character as {@code \xNN} (its low byte: the text was read as ISO-8859-1,
 * one character per byte), a backslash doubled, and at most so many characters of it. Raw, it could
 * forge log lines (a newline), hide in a terminal (escape sequences), or bloat an entry.
 */
public final class UntrustedText {

    /** Characters of a claimed IMEI kept: a real one has 15. */
    public static final int IMEI_CHARS = 32;

    private UntrustedText() {
    }

    /** {@code text} escaped, its first {@code maxChars} characters only (then {@code ...(N chars)}); null stays null. */
    public static String escape(CharSequence text, int maxChars) {
        if (text == null) {
            return null;
        }
        int shown = Math.min(text.length(), maxChars);
        StringBuilder out = new StringBuilder(shown + 16);
        for (int i = 0; i < shown; i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                out.append("\\\\");
            } else if (c >= 0x20 && c < 0x7F) {
                out.append(c);
            } else {
                out.append("\\x").append(Character.forDigit((c >> 4) & 0xF, 16))
                        .append(Character.forDigit(c & 0xF, 16));
            }
        }
        if (text.length() > shown) {
            out.append("...(").append(text.length()).append(" chars)");
        }
        return out.toString();
    }
}
