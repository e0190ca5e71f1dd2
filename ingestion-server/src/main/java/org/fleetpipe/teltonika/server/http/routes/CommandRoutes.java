package org.fleetpipe.teltonika.server.http.routes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.command.CommandSettings;
import org.fleetpipe.teltonika.server.command.CommandStore;
import org.fleetpipe.teltonika.server.command.ReplyWaiter;
import org.fleetpipe.teltonika.server.http.ApiRequest;
import org.fleetpipe.teltonika.server.http.ApiRoute;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;

/**
 * {@code GET /api/v1/commands/{id}}, and {@code POST /api/v1/devices/{imei}/commands} (reached
 * through {@link DeviceRoutes}): validate, store and queue a command; with {@code wait_ms}, answer
 * once it finished (200) or when the wait ran out (202 with the status then).
 */
public final class CommandRoutes implements ApiRoute {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The fields a command request may have; every other is refused. */
    private static final Set<String> FIELDS = new LinkedHashSet<>(
            List.of("command", "codec", "wait_ms", "ttl_ms", "max_attempts"));

    private final CommandStore store;
    private final ReplyWaiter waiter;
    private final CommandSettings settings;
    private final IngestionMetrics metrics;

    public CommandRoutes(CommandStore store, ReplyWaiter waiter, CommandSettings settings, IngestionMetrics metrics) {
        this.store = store;
        this.waiter = waiter;
        this.settings = settings;
        this.metrics = metrics;
    }

    @Override
    public String resource() {
        return "commands";
    }

    @Override
    public void handle(ApiRequest call) {
        if (call.segments().length != 2 || !call.request().method().equals(HttpMethod.GET)) {
            call.error(HttpResponseStatus.NOT_FOUND, "not-found", "try GET /api/v1/commands/{id}");
            return;
        }
        String id = call.segments()[1];
        store.get(id).whenComplete((fields, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
            } else if (fields.isEmpty()) {
                call.error(HttpResponseStatus.NOT_FOUND, "not-found", "no command " + id);
            } else {
                call.json(HttpResponseStatus.OK, view(fields));
            }
        });
    }

    /** {@code POST /api/v1/devices/{imei}/commands}. */
    void submit(ApiRequest call, Imei imei) {
        ObjectNode body = JsonBody.object(call);
        if (body == null) {
            reject(call, "bad-json", "the body must be a JSON object");
            return;
        }
        String unknown = JsonBody.unknownField(body, FIELDS);
        if (unknown != null) {
            reject(call, "unknown-field", "unknown field '" + JsonBody.shown(unknown) + "'; the fields are "
                    + String.join(", ", FIELDS));
            return;
        }
        JsonNode commandNode = body.get("command");
        String text = commandNode == null || !commandNode.isTextual() ? null : commandNode.asText();
        if (text == null || text.isEmpty() || text.length() > settings.maxCommandBytes() || !printableAscii(text)) {
            reject(call, "bad-command", "command must be 1.." + settings.maxCommandBytes()
                    + " printable ASCII characters");
            return;
        }
        Long codec = JsonBody.wholeNumber(body, "codec", 12, 14, 12);
        if (codec == null || codec == 13) {
            reject(call, "bad-codec", "codec must be the number 12 or 14");
            return;
        }
        Long waitMs = JsonBody.wholeNumber(body, "wait_ms", 0, settings.maxWait().toMillis(), 0);
        if (waitMs == null) {
            reject(call, "bad-wait", "wait_ms must be a whole number 0.." + settings.maxWait().toMillis());
            return;
        }
        Long ttlMs = JsonBody.wholeNumber(body, "ttl_ms", 1, settings.maxTtl().toMillis(),
                settings.defaultTtl().toMillis());
        if (ttlMs == null) {
            reject(call, "bad-ttl", "ttl_ms must be a whole number 1.." + settings.maxTtl().toMillis());
            return;
        }
        Long maxAttempts = JsonBody.wholeNumber(body, "max_attempts", 1, CommandSettings.MAX_ATTEMPTS_LIMIT,
                settings.maxAttempts());
        if (maxAttempts == null) {
            reject(call, "bad-max-attempts", "max_attempts must be an integer 1.." + CommandSettings.MAX_ATTEMPTS_LIMIT);
            return;
        }
        String id = UUID.randomUUID().toString();
        store.enqueue(id, imei, codec.intValue(), text, System.currentTimeMillis() + ttlMs, maxAttempts.intValue())
                .whenComplete((length, error) -> {
                    if (error != null) {
                        call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable",
                                "Redis did not answer");
                    } else if (length < 0) {
                        metrics.command("rejected");
                        call.error(HttpResponseStatus.TOO_MANY_REQUESTS, "queue-full", "device " + imei
                                + " already has " + settings.maxQueuePerDevice() + " commands waiting");
                    } else {
                        metrics.command("queued");
                        answer(call, id, waitMs);
                    }
                });
    }

    private void answer(ApiRequest call, String id, long waitMs) {
        if (waitMs == 0) {
            store.get(id).whenComplete((fields, error) -> respond(call, id, fields, error));
            return;
        }
        waiter.await(id, Duration.ofMillis(waitMs))
                .thenCompose(v -> store.get(id))
                .whenComplete((fields, error) -> respond(call, id, fields, error));
    }

    private void respond(ApiRequest call, String id, Map<String, String> fields, Throwable error) {
        if (error != null || fields == null || fields.isEmpty()) {
            call.json(HttpResponseStatus.ACCEPTED, Map.of("id", id, "status", "queued"));
            return;
        }
        String status = fields.get("status");
        boolean done = "replied".equals(status) || "failed".equals(status);
        call.json(done ? HttpResponseStatus.OK : HttpResponseStatus.ACCEPTED, view(fields));
    }

    private void reject(ApiRequest call, String code, String message) {
        metrics.command("rejected");
        call.error(HttpResponseStatus.BAD_REQUEST, code, message);
    }

    private static boolean printableAscii(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                return false;
            }
        }
        return true;
    }

    /** The command as the API shows it: numbers as numbers, the history as a list. */
    static Map<String, Object> view(Map<String, String> fields) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("id", fields.get("id"));
        v.put("imei", fields.get("imei"));
        v.put("codec", number(fields.get("codec")));
        v.put("command", fields.get("command"));
        v.put("status", fields.get("status"));
        v.put("reason", fields.get("reason"));
        v.put("reply", fields.get("reply"));
        v.put("attempts", number(fields.get("attempts")));
        v.put("max_attempts", number(fields.get("max_attempts")));
        v.put("created_at", number(fields.get("created_at")));
        v.put("sent_at", number(fields.get("sent_at")));
        v.put("replied_at", number(fields.get("replied_at")));
        v.put("expires_at", number(fields.get("expires_at")));
        try {
            v.put("history", fields.get("history") == null ? null : JSON.readTree(fields.get("history")));
        } catch (IOException e) {
            v.put("history", null);
        }
        return v;
    }

    private static Long number(String text) {
        return text == null ? null : Long.valueOf(text);
    }
}
