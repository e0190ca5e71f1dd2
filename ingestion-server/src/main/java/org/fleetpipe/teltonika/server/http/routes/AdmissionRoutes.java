package org.fleetpipe.teltonika.server.http.routes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.InstanceEvent;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.admission.AdmissionMode;
import org.fleetpipe.teltonika.server.admission.AdmissionScripts;
import org.fleetpipe.teltonika.server.http.ApiRequest;
import org.fleetpipe.teltonika.server.http.ApiRoute;

/**
 * The device lists: {@code GET /api/v1/admission} (mode and sizes),
 * {@code PUT|DELETE /api/v1/admission/{allowed|denied}/{imei}}, and
 * {@code POST /api/v1/admission/{allowed|denied}} with {@code {"add": [...], "remove": [...]}} for
 * thousands at once. Changes apply at the next login on every replica; denying a connected device,
 * or taking it off the allow-list in allow-list mode, cuts it off wherever it is.
 */
public final class AdmissionRoutes implements ApiRoute {

    private static final Set<String> BULK_FIELDS = Set.of("add", "remove");
    private static final int MAX_BULK = 10_000;
    /** IMEIs per script call: each call stays well under a millisecond of Redis time. */
    private static final int BATCH = 500;

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final AdmissionMode mode;

    public AdmissionRoutes(RedisAsyncCommands<String, String> redis, RedisKeys keys, AdmissionMode mode) {
        this.redis = redis;
        this.keys = keys;
        this.mode = mode;
    }

    @Override
    public String resource() {
        return "admission";
    }

    @Override
    public void handle(ApiRequest call) {
        String[] path = call.segments();
        HttpMethod method = call.request().method();
        if (path.length == 1 && method.equals(HttpMethod.GET)) {
            redis.scard(keys.allowedDevices()).thenCombine(redis.scard(keys.deniedDevices()), (allowed, denied) -> {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("mode", mode.label());
                body.put("allowed", allowed);
                body.put("denied", denied);
                return body;
            }).whenComplete((body, error) -> answer(call, body, error));
            return;
        }
        String list = path.length >= 2 ? path[1] : "";
        if (!list.equals("allowed") && !list.equals("denied")) {
            call.error(HttpResponseStatus.NOT_FOUND, "not-found", "the lists are /api/v1/admission/allowed and /denied");
            return;
        }
        if (path.length == 3 && (method.equals(HttpMethod.PUT) || method.equals(HttpMethod.DELETE))) {
            List<String> one = new ArrayList<>();
            if (!collect(call, List.of(path[2]), one)) {
                return;
            }
            boolean add = method.equals(HttpMethod.PUT);
            change(list, add, one).whenComplete((n, error) -> answer(call, Map.of(add ? "added" : "removed", n), error));
            return;
        }
        if (path.length == 2 && method.equals(HttpMethod.POST)) {
            bulk(call, list);
            return;
        }
        call.error(HttpResponseStatus.NOT_FOUND, "not-found",
                "PUT or DELETE /api/v1/admission/" + list + "/{imei}, or POST /api/v1/admission/" + list);
    }

    private void bulk(ApiRequest call, String list) {
        ObjectNode body = JsonBody.object(call);
        if (body == null) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-json", "the body must be {\"add\": [...], \"remove\": [...]}");
            return;
        }
        String unknown = JsonBody.unknownField(body, BULK_FIELDS);
        if (unknown != null) {
            call.error(HttpResponseStatus.BAD_REQUEST, "unknown-field", "unknown field '" + JsonBody.shown(unknown)
                    + "'; the fields are add and remove");
            return;
        }
        List<String> add = new ArrayList<>();
        List<String> remove = new ArrayList<>();
        if (!texts(call, body, "add", add) || !texts(call, body, "remove", remove)) {
            return;
        }
        if (add.size() + remove.size() > MAX_BULK) {
            call.error(HttpResponseStatus.BAD_REQUEST, "too-many", "at most " + MAX_BULK + " IMEIs per request");
            return;
        }
        change(list, true, add).thenCombine(change(list, false, remove), (added, removed) -> {
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("added", added);
            result.put("removed", removed);
            return result;
        }).whenComplete((result, error) -> answer(call, result, error));
    }

    /** The list {@code field} of IMEI strings (none when absent) into {@code out}; false after answering 400. */
    private boolean texts(ApiRequest call, ObjectNode body, String field, List<String> out) {
        JsonNode node = body.get(field);
        if (node == null) {
            return true;
        }
        if (!node.isArray()) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-json", field + " must be a list of IMEI strings");
            return false;
        }
        List<String> raw = new ArrayList<>();
        for (JsonNode item : node) {
            if (!item.isTextual()) {
                // 352093081452251 as a number is no IMEI: a JSON number loses leading zeros and digits.
                call.error(HttpResponseStatus.BAD_REQUEST, "bad-imei", field + " must hold IMEIs as strings, not "
                        + JsonBody.shown(item.toString()));
                return false;
            }
            raw.add(item.asText());
        }
        return collect(call, raw, out);
    }

    private boolean collect(ApiRequest call, List<String> raw, List<String> out) {
        for (String text : raw) {
            try {
                out.add(Imei.parse(text, false).value());
            } catch (CodecException e) {
                call.error(HttpResponseStatus.BAD_REQUEST, "bad-imei", "not an IMEI: " + JsonBody.shown(text));
                return false;
            }
        }
        return true;
    }

    private CompletionStage<Long> change(String list, boolean add, List<String> imeis) {
        String key = list.equals("allowed") ? keys.allowedDevices() : keys.deniedDevices();
        CompletableFuture<Long> total = CompletableFuture.completedFuture(0L);
        for (int from = 0; from < imeis.size(); from += BATCH) {
            List<String> batch = imeis.subList(from, Math.min(imeis.size(), from + BATCH));
            String[] args = new String[batch.size() + 5];
            args[0] = add ? "add" : "remove";
            args[1] = list.equals("denied") ? "1" : "0";
            args[2] = keys.instanceEventsPrefix();
            args[3] = InstanceEvent.DENY.verb();
            args[4] = InstanceEvent.REVOKE.verb();
            for (int i = 0; i < batch.size(); i++) {
                args[i + 5] = batch.get(i);
            }
            CompletionStage<Long> n = AdmissionScripts.CHANGE_LISTS.call(redis, ScriptOutputType.INTEGER,
                    new String[] {key, keys.registry()}, args);
            total = total.thenCombine(n, Long::sum);
        }
        return total;
    }

    private static void answer(ApiRequest call, Object body, Throwable error) {
        if (error != null) {
            call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
        } else {
            call.json(HttpResponseStatus.OK, body);
        }
    }
}
