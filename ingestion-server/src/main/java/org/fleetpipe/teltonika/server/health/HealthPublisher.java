package org.fleetpipe.teltonika.server.health;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.json.Json;

/**
 * Writes the report into the hash {@code health:queues} for tools without HTTP: {@code computedAt},
 * {@code instance}, {@code status} and one field per queue holding its JSON (the fields of
 * {@code GET /api/v1/health/queues}). One instance per period writes: the script skips the write
 * when the stored {@code computedAt} is less than a period old.
 */
final class HealthPublisher {

    private static final int PERIODS_KEPT = 3;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final String key;
    private final Duration period;
    private final Supplier<String> instance;
    private final Duration timeout;

    HealthPublisher(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, Duration period,
                    Supplier<String> instance, Duration timeout) {
        this.redis = redis;
        this.key = key(keys);
        this.period = period;
        this.instance = instance;
        this.timeout = timeout;
    }

    /** The hash {@code health:queues}, with the namespace in front. */
    static String key(RedisKeys keys) {
        return keys.namespace() + "health:queues";
    }

    /** True when this instance wrote the hash, false when another did within the period. */
    boolean publish(QueueHealthMonitor.Report report) {
        List<String> args = new ArrayList<>(List.of(Long.toString(report.computedAt()), Long.toString(period.toMillis()),
                Long.toString(period.toMillis() * PERIODS_KEPT), "instance", instance.get(), "status",
                report.status().label()));
        for (QueueHealth q : report.queues()) {
            args.add(q.queue());
            args.add(json(q));
        }
        Long written = Blocking.await(HealthScripts.PUBLISH_QUEUES.<Long>call(redis, ScriptOutputType.INTEGER,
                new String[] {key}, args.toArray(String[]::new)), timeout);
        return written != null && written == 1;
    }

    /** The API's fields of one queue, snake_case, its detail after them. */
    static Map<String, Object> fields(QueueHealth q) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("queue", q.queue());
        fields.put("size", q.size());
        fields.put("oldest_age_ms", q.oldestAgeMs());
        fields.put("avg_age_ms", q.avgAgeMs());
        fields.put("rate_per_minute", q.ratePerMinute());
        fields.put("stuck", q.stuck());
        fields.put("status", q.status().label());
        fields.put("reason", q.reason());
        fields.putAll(q.detail());
        return fields;
    }

    private static String json(QueueHealth q) {
        try {
            return Json.MAPPER.writeValueAsString(fields(q));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("queue health not writable as JSON: " + q.queue(), e);
        }
    }
}
