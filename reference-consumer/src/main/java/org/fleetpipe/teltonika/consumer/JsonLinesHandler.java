package org.fleetpipe.teltonika.consumer;

import io.lettuce.core.StreamMessage;
import java.io.PrintStream;
import java.util.Map;

/**
 * Prints each entry as one JSON object: the stream id, then every field as a string, except
 * {@code io}, which already is a JSON object and is embedded as one. Every line has {@code valid}:
 * a schema 1 entry, which has none, gets it from the same rule ({@link EntryValidity}).
 */
public final class JsonLinesHandler implements EntryHandler {

    private final PrintStream out;

    public JsonLinesHandler(PrintStream out) {
        this.out = out;
    }

    @Override
    public void handle(StreamMessage<String, String> entry) {
        StringBuilder line = new StringBuilder(512).append("{\"id\":");
        quote(line, entry.getId());
        for (Map.Entry<String, String> field : entry.getBody().entrySet()) {
            line.append(',');
            quote(line, field.getKey());
            line.append(':');
            if (field.getKey().equals("io")) {
                line.append(field.getValue());
            } else {
                quote(line, field.getValue());
            }
        }
        String derived = entry.getBody().containsKey("valid") ? null : EntryValidity.of(entry.getBody());
        if (derived != null) {
            line.append(",\"valid\":");
            quote(line, derived);
        }
        out.println(line.append('}'));
    }

    private static void quote(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
