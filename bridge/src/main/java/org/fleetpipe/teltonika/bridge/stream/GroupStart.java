package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.RedisBusyException;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Creates the consumer group, or with {@code --from} sets it to a past point for a replay, on every
 * telemetry stream (each partition's: the same point in time on each). A new group starts at the
 * oldest entry the stream still holds, as the reference consumer does: a bridge deployed after the
 * servers delivers what they stored before it ({@code --from end} skips that). A point before the
 * oldest entry still in any of the streams is refused before any group is touched: those records
 * are gone, and starting later than asked without saying so would pass for a complete replay.
 */
public final class GroupStart {

    /** {@code --from end}: a new group starts after the last entry; an existing one stays where it is. */
    public static final String END = "$";

    private static final Pattern ENTRY_ID = Pattern.compile("[0-9]{1,19}(-[0-9]{1,19})?");

    private GroupStart() {}

    /**
     * What {@code --from} asked for, as a stream id, or {@link #END}; empty when not given (a new
     * group starts at the oldest entry held, an existing one stays where it is).
     */
    public static Optional<String> parseFrom(String from) {
        if (from == null || from.isBlank()) {
            return Optional.empty();
        }
        if (from.trim().equals("end")) {
            return Optional.of(END);
        }
        if (ENTRY_ID.matcher(from).matches()) {
            return Optional.of(from.contains("-") ? from : from + "-0");
        }
        try {
            return Optional.of(Instant.parse(from).toEpochMilli() + "-0");
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "--from must be a stream entry id (1795502830415-0), an ISO time (2026-11-26T08:00:00Z) or end: "
                            + from);
        }
    }

    /**
     * Makes sure the group exists. Without a start point an existing group is left where it is and a
     * new one starts at the oldest entry held (counted in the line: what it will deliver first);
     * with {@link #END} a new one starts at the end, an existing one stays; with a point, the group
     * is created or moved there.
     *
     * @return a line saying what was done, for the start log
     */
    public static String apply(RedisClusterCommands<String, String> redis, StreamKeys keys, Optional<String> from) {
        List<String> streams = keys.telemetryStreams();
        if (from.isPresent() && !from.get().equals(END)) {
            for (String stream : streams) {
                refuseTrimmed(redis, stream, from.get());
            }
        }
        Map<String, Integer> outcomes = new TreeMap<>();
        long toDeliver = 0;
        for (String stream : streams) {
            String outcome = apply(redis, stream, keys.group(), from);
            outcomes.merge(outcome, 1, Integer::sum);
            if (outcome.equals(CREATED_AT_OLDEST)) {
                // Nothing acknowledged yet: everything the stream holds is for this group.
                toDeliver += redis.xlen(stream);
            }
        }
        String held = outcomes.containsKey(CREATED_AT_OLDEST) ? " entries_to_deliver=" + toDeliver : "";
        if (streams.size() == 1) {
            return "group=" + keys.group() + " " + outcomes.keySet().iterator().next() + held;
        }
        // "created at=oldest partitions=16", or "created at=oldest=3 exists=13 partitions=16" when they differ.
        return "group=" + keys.group() + " " + (outcomes.size() == 1 ? outcomes.keySet().iterator().next()
                : outcomes.entrySet().stream().map(o -> o.getKey() + "=" + o.getValue())
                        .collect(java.util.stream.Collectors.joining(" "))) + " partitions=" + streams.size() + held;
    }

    private static final String CREATED_AT_OLDEST = "created at=oldest";

    /** The group on one stream; says what was done. */
    private static String apply(RedisClusterCommands<String, String> redis, String stream, String group,
                                Optional<String> from) {
        // 0-0: the group delivers from the oldest entry the stream still holds.
        String startId = from.map(point -> point.equals(END) ? END : EntryIds.before(point)).orElse("0-0");
        try {
            redis.xgroupCreate(XReadArgs.StreamOffset.from(stream, startId), group,
                    XGroupCreateArgs.Builder.mkstream());
            return from.isEmpty() ? CREATED_AT_OLDEST : "created at=" + (from.get().equals(END) ? "end" : from.get());
        } catch (RedisBusyException exists) {
            // "end" only ever applies to a new group: left in a Deployment, it must not skip on every start.
            if (from.isEmpty() || from.get().equals(END)) {
                return "exists";
            }
            redis.xgroupSetid(XReadArgs.StreamOffset.from(stream, startId), group);
            return "moved to=" + from.get() + " (replay)";
        }
    }

    private static void refuseTrimmed(RedisClusterCommands<String, String> redis, String stream, String from) {
        if (from.equals("0-0")) {
            return;
        }
        List<StreamMessage<String, String>> oldest = redis.xrange(stream, io.lettuce.core.Range.create("-", "+"),
                io.lettuce.core.Limit.from(1));
        if (!oldest.isEmpty() && EntryIds.compare(oldest.get(0).getId(), from) > 0 && !isStreamStart(redis, stream)) {
            throw new IllegalArgumentException("--from " + from + " is before the oldest entry still in the stream "
                    + stream + " (" + oldest.get(0).getId() + "): the records before it were trimmed. Start at --from 0 for all that"
                    + " is left, or keep a replay window with the servers' TELEMETRY_RETENTION_MIN_AGE.");
        }
    }

    /** Whether the stream never lost an entry: its first entry is the first one ever added. */
    private static boolean isStreamStart(RedisClusterCommands<String, String> redis, String stream) {
        // XINFO STREAM's entries-added exists from Redis 7; on 6.2 assume entries were trimmed.
        try {
            List<Object> info = redis.xinfoStream(stream);
            for (int i = 0; i + 1 < info.size(); i += 2) {
                if ("entries-added".equals(info.get(i)) && info.get(i + 1) instanceof Long added) {
                    return added == redis.xlen(stream);
                }
            }
        } catch (RuntimeException e) {
            return false;
        }
        return false;
    }
}
