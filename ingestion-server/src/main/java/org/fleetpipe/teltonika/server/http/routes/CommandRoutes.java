package org.fleetpipe.teltonika.server.http.routes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBufInputStream;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
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
        JsonNode body;
        try (ByteBufInputStream in = new ByteBufInputStream(call.request().content())) {
            body = JSON.readTree(in);
        } catch (IOException e) {
            reject(call, "bad-json", "the body must be a JSON object");
            return;
        }
        if (body == null || !body.isObject()) {
            reject(call, "bad-json", "the body must be a JSON object");
            return;
        }
        JsonNode commandNode = body.get("command");
        String text = commandNode == null || !commandNode.isTextual() ? null : commandNode.asText();
        if (text == null || text.isEmpty() || text.length() > settings.maxCommandBytes() || !printableAscii(text)) {
            reject(call, "bad-command", "command must be 1.." + settings.maxCommandBytes()
                    + " printable ASCII characters");
            return;
        }
        int codec = body.has("codec") ? body.get("codec").asInt(-1) : 12;
        if (codec != 12 && codec != 14) {
            reject(call, "bad-codec", "codec must be 12 or 14");
            return;
        }
        long waitMs = body.has("wait_ms") ? body.get("wait_ms").asLong(-1) : 0;
        if (waitMs < 0 || waitMs > settings.maxWait().toMillis()) {
            reject(call, "bad-wait", "wait_ms must be 0.." + settings.maxWait().toMillis());
            return;
        }
        long ttlMs = body.has("ttl_ms") ? body.get("ttl_ms").asLong(-1) : settings.defaultTtl().toMillis();
        if (ttlMs <= 0 || ttlMs > settings.maxTtl().toMillis()) {
            reject(call, "bad-ttl", "ttl_ms must be 1.." + settings.maxTtl().toMillis());
            return;
        }
        int maxAttempts = maxAttempts(body.get("max_attempts"));
        if (maxAttempts < 0) {
            reject(call, "bad-max-attempts", "max_attempts must be an integer 1.." + CommandSettings.MAX_ATTEMPTS_LIMIT);
            return;
        }
        String id = UUID.randomUUID().toString();
        store.enqueue(id, imei, codec, text, System.currentTimeMillis() + ttlMs, maxAttempts)
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

    /** The request's sends (the setting when absent), or -1 for anything but an integer in range. */
    private int maxAttempts(JsonNode node) {
        if (node == null) {
            return settings.maxAttempts();
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            return -1;
        }
        int n = node.intValue();
        return n >= 1 && n <= CommandSettings.MAX_ATTEMPTS_LIMIT ? n : -1;
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
