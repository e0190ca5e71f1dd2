package org.fleetpipe.teltonika.server.http.routes;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.http.ApiRequest;
import org.fleetpipe.teltonika.server.http.ApiRoute;
import org.fleetpipe.teltonika.server.ops.PurgeReport;
import org.fleetpipe.teltonika.server.ops.Purger;
import org.fleetpipe.teltonika.server.health.QueueHealth;
import org.fleetpipe.teltonika.server.health.QueueHealthMonitor;

/**
 * The on-call engineer's calls: {@code GET /api/v1/health/queues},
 * {@code GET /api/v1/dlq/{frames|commands}?limit=&since=} and {@code POST /api/v1/purge?dry_run=}.
 * One class per resource would be three near-empty classes; they share the query parsing.
 */
public final class OpsRoutes {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_LIMIT = 1000;

    private final QueueHealthMonitor health;
    private final Purger purger;
    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;

    public OpsRoutes(QueueHealthMonitor health, Purger purger, RedisAsyncCommands<String, String> redis,
                     RedisKeys keys) {
        this.health = health;
        this.purger = purger;
        this.redis = redis;
        this.keys = keys;
    }

    public List<ApiRoute> routes() {
        return List.of(route("health", this::queues), route("dlq", this::deadLetters), route("purge", this::purge));
    }

    private static ApiRoute route(String resource, java.util.function.Consumer<ApiRequest> handler) {
        return new ApiRoute() {
            @Override
            public String resource() {
                return resource;
            }

            @Override
            public void handle(ApiRequest call) {
                handler.accept(call);
            }
        };
    }

    private void queues(ApiRequest call) {
        if (!get(call, 2) || !call.segments()[1].equals("queues")) {
            call.error(HttpResponseStatus.NOT_FOUND, "not-found", "try GET /api/v1/health/queues");
            return;
        }
        QueueHealthMonitor.Report report = health.last();
        List<Map<String, Object>> queues = new ArrayList<>();
        for (QueueHealth q : report.queues()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("queue", q.queue());
            entry.put("size", q.size());
            entry.put("oldest_age_ms", q.oldestAgeMs());
            entry.put("stuck", q.stuck());
            entry.put("status", q.status().label());
            entry.putAll(q.detail());
            queues.add(entry);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", report.status().label());
        body.put("computed_at", report.computedAt());
        body.put("queues", queues);
        call.json(HttpResponseStatus.OK, body);
    }

    private void deadLetters(ApiRequest call) {
        String kind = call.segments().length == 2 ? call.segments()[1] : "";
        String key = kind.equals("frames") ? keys.frameDeadLetters()
                : kind.equals("commands") ? keys.commandDeadLetters() : null;
        if (!get(call, 2) || key == null) {
            call.error(HttpResponseStatus.NOT_FOUND, "not-found", "try GET /api/v1/dlq/frames or /api/v1/dlq/commands");
            return;
        }
        long limit;
        long since;
        try {
            QueryStringDecoder query = new QueryStringDecoder(call.request().uri());
            limit = param(query, "limit", 100);
            since = param(query, "since", 0);
        } catch (IllegalArgumentException e) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-query", "limit and since are whole numbers");
            return;
        }
        if (limit < 1 || limit > MAX_LIMIT || since < 0) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-query", "limit must be 1.." + MAX_LIMIT
                    + ", since (ms) not negative");
            return;
        }
        redis.zrangebyscore(key, Range.create(since, Long.MAX_VALUE), Limit.create(0, limit))
                .whenComplete((entries, error) -> {
                    if (error != null) {
                        call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
                        return;
                    }
                    List<Object> parsed = new ArrayList<>();
                    for (String entry : entries) {
                        try {
                            parsed.add(JSON.readTree(entry));
                        } catch (IOException e) {
                            parsed.add(entry);
                        }
                    }
                    call.json(HttpResponseStatus.OK, Map.of("kind", kind, "entries", parsed));
                });
    }

    private void purge(ApiRequest call) {
        if (call.segments().length != 1 || !call.request().method().equals(HttpMethod.POST)) {
            call.error(HttpResponseStatus.NOT_FOUND, "not-found", "try POST /api/v1/purge?dry_run=true");
            return;
        }
        List<String> dry;
        try {
            dry = new QueryStringDecoder(call.request().uri()).parameters().get("dry_run");
        } catch (IllegalArgumentException e) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-query", "malformed query string");
            return;
        }
        String dryValue = dry == null || dry.isEmpty() ? "false" : dry.get(0);
        if (!dryValue.isEmpty() && !dryValue.equals("true") && !dryValue.equals("false")) {
            // dry_run=1 or =yes must not purge for real.
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-query", "dry_run must be true or false");
            return;
        }
        boolean dryRun = !dryValue.equals("false");
        purger.purgeSoon(dryRun).whenComplete((report, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "purge-failed", "the purge could not finish; see the server log");
                return;
            }
            call.json(HttpResponseStatus.OK, view(report));
        });
    }

    private static Map<String, Object> view(PurgeReport r) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("dry_run", r.dryRun());
        body.put("expired_commands", r.expiredCommands());
        body.put("orphaned_commands", r.orphanedCommands());
        body.put("frame_dead_letters_past_ttl", r.frameDeadLetters());
        body.put("command_dead_letters_past_ttl", r.commandDeadLetters());
        body.put("elapsed_ms", r.elapsedMs());
        return body;
    }

    private static boolean get(ApiRequest call, int segments) {
        return call.segments().length == segments && call.request().method().equals(HttpMethod.GET);
    }

    private static long param(QueryStringDecoder query, String name, long fallback) {
        List<String> values = query.parameters().get(name);
        return values == null || values.isEmpty() ? fallback : Long.parseLong(values.get(0));
    }
}
