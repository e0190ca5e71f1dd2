package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.models.stream.PendingMessages;
import java.util.List;
import java.util.Map;

/**
 * How far the group is behind: entries not acknowledged, and the age of the oldest of them; with
 * partitions, the entries summed over the streams and the oldest of any.
 */
public final class GroupLag {

    /** The answer; {@code entries} is -1 when Redis cannot count them (6.2 has no group lag). */
    public record Lag(long entries, long oldestAgeMillis) {}

    private final RedisClusterCommands<String, String> redis;
    private final StreamKeys keys;

    public GroupLag(RedisClusterCommands<String, String> redis, StreamKeys keys) {
        this.redis = redis;
        this.keys = keys;
    }

    public Lag measure(long nowMillis) {
        long entries = 0;
        long age = 0;
        for (String stream : keys.telemetryStreams()) {
            Lag lag = measure(stream, nowMillis);
            entries = entries < 0 || lag.entries() < 0 ? -1 : entries + lag.entries();
            age = Math.max(age, lag.oldestAgeMillis());
        }
        return new Lag(entries, age);
    }

    private Lag measure(String stream, long nowMillis) {
        Map<String, Object> group = group(stream);
        long pending = number(group.get("pending"));
        Object lag = group.get("lag");
        long entries = lag instanceof Long undelivered ? undelivered + pending : -1;
        String oldest = null;
        if (pending > 0) {
            PendingMessages summary = redis.xpending(stream, keys.group());
            oldest = summary.getMessageIds().getLower().getValue();
        } else if (group.get("last-delivered-id") instanceof String lastDelivered) {
            List<StreamMessage<String, String>> next = redis.xrange(stream,
                    Range.from(Range.Boundary.excluding(lastDelivered), Range.Boundary.unbounded()), Limit.from(1));
            oldest = next.isEmpty() ? null : next.get(0).getId();
        }
        long age = oldest == null ? 0 : Math.max(0, nowMillis - Long.parseLong(oldest.substring(0, oldest.indexOf('-'))));
        return new Lag(entries, age);
    }

    private Map<String, Object> group(String stream) {
        for (Object info : redis.xinfoGroups(stream)) {
            Map<String, Object> fields = new java.util.HashMap<>();
            List<?> list = (List<?>) info;
            for (int i = 0; i + 1 < list.size(); i += 2) {
                fields.put(String.valueOf(list.get(i)), list.get(i + 1));
            }
            if (keys.group().equals(fields.get("name"))) {
                return fields;
            }
        }
        return Map.of();
    }

    private static long number(Object value) {
        return value instanceof Long n ? n : 0;
    }
}
