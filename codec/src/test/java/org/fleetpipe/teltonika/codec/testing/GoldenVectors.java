package org.fleetpipe.teltonika.codec.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** The real frames of {@code shared/vectors/wiki.json}, copied into the codec's test resources. */
public final class GoldenVectors {

    /** One vector; {@code json} keeps every field for exact comparisons. */
    public record Vector(String name, String kind, String codec, String hex, JsonNode json) {
        public byte[] bytes() {
            return Hex.bytes(hex);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private GoldenVectors() {
    }

    public static List<Vector> all() {
        try (InputStream in = GoldenVectors.class.getResourceAsStream("/vectors/wiki.json")) {
            if (in == null) {
                throw new IllegalStateException("vectors/wiki.json is not on the test classpath");
            }
            List<Vector> out = new ArrayList<>();
            for (JsonNode n : new ObjectMapper().readTree(in)) {
                out.add(new Vector(n.get("name").asText(), n.get("kind").asText(), n.get("codec").asText(),
                        n.get("hex").asText(), n));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<Vector> ofKind(String kind) {
        return all().stream().filter(v -> v.kind().equals(kind)).toList();
    }
}
