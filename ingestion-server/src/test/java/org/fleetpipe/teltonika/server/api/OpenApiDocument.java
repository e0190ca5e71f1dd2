package org.fleetpipe.teltonika.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The served {@code openapi.yaml} as tests read it: its operations ({@code GET /api/v1/commands/{id}})
 * and the responses each documents, as {@code "GET /api/v1/commands/{id} 404 not-found"} (the error
 * code empty for an answer that is no error).
 */
public final class OpenApiDocument {

    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");

    private final JsonNode root;

    private OpenApiDocument(JsonNode root) {
        this.root = root;
    }

    /** The spec the server serves. */
    public static OpenApiDocument served() {
        return parse(SpecResource.read());
    }

    public static OpenApiDocument parse(String yaml) {
        try {
            return new OpenApiDocument(new ObjectMapper(new YAMLFactory()).readTree(yaml));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public JsonNode root() {
        return root;
    }

    /** Every operation: method (upper case), a space, the path. */
    public Set<String> operations() {
        Set<String> operations = new TreeSet<>();
        forEachOperation((operation, node) -> operations.add(operation));
        return operations;
    }

    /** Every documented response of every operation: operation, status, error code ("" for none). */
    public Set<String> responses() {
        Set<String> responses = new TreeSet<>();
        forEachOperation((operation, node) -> {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.path("responses").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> response = it.next();
                Set<String> codes = errorCodes(resolve(response.getValue()));
                if (codes.isEmpty()) {
                    responses.add(operation + " " + response.getKey() + " ");
                }
                codes.forEach(code -> responses.add(operation + " " + response.getKey() + " " + code));
            }
        });
        return responses;
    }

    private void forEachOperation(java.util.function.BiConsumer<String, JsonNode> each) {
        for (Iterator<Map.Entry<String, JsonNode>> paths = root.path("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                if (METHODS.contains(op.getKey())) {
                    each.accept(op.getKey().toUpperCase() + " " + path.getKey(), op.getValue());
                }
            }
        }
    }

    /** The error codes an error response lists: its JSON schema's {@code error} enum. */
    private Set<String> errorCodes(JsonNode response) {
        Set<String> codes = new TreeSet<>();
        JsonNode schema = response.path("content").path("application/json").path("schema");
        if (!schema.path("$ref").asText().equals("#/components/schemas/Error")) {
            return codes;
        }
        schema.path("properties").path("error").path("enum").forEach(code -> codes.add(code.asText()));
        if (codes.isEmpty()) {
            throw new IllegalStateException("an error response without its codes: " + response);
        }
        return codes;
    }

    /** A response, or the one its {@code $ref} names. */
    private JsonNode resolve(JsonNode node) {
        String ref = node.path("$ref").asText("");
        if (ref.isEmpty()) {
            return node;
        }
        JsonNode target = root;
        for (String part : ref.substring(2).split("/")) {
            target = target.path(part);
        }
        if (target.isMissingNode()) {
            throw new IllegalStateException("unresolved " + ref);
        }
        return target;
    }
}
