package org.fleetpipe.teltonika.server.api;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** {@code GET /api/v1/openapi.yaml}: the API's OpenAPI description, as this version serves it. */
public final class SpecResource {

    /** Where the spec is on the class path. */
    public static final String SPEC = "api/openapi.yaml";

    private final String spec;

    public SpecResource() {
        this.spec = read();
    }

    public ApiResource resource() {
        return ApiResource.of("openapi.yaml", "try GET /api/v1/openapi.yaml", Route.get("openapi.yaml",
                call -> call.text(HttpResponseStatus.OK, spec, "application/yaml")));
    }

    /** The spec's text. */
    public static String read() {
        try (InputStream in = SpecResource.class.getClassLoader().getResourceAsStream(SPEC)) {
            if (in == null) {
                throw new IllegalStateException(SPEC + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
