package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.Consumer;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.models.stream.ClaimedMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * This replica's reads in the consumer group, on every telemetry stream (one, or one per
 * partition): its own pending entries (given to it before a restart and never acknowledged), new
 * entries, and entries a dead replica left behind. Runs on one connection of its own, because
 * XREADGROUP blocks it.
 */
public final class GroupReader {

    private static final String START = "0-0";

    private final RedisCommands<String, String> redis;
    private final List<String> streams;
    private final Consumer<String> me;
    /** The streams whose own pending entries are not all read yet, each with the last id read. */
    private final Map<String, String> ownPendingCursors = new LinkedHashMap<>();
    private final String[] claimCursors;
    private int claimStream;

    public GroupReader(RedisCommands<String, String> redis, StreamKeys keys, String consumerName) {
        this.redis = redis;
        this.streams = keys.telemetryStreams();
        this.me = Consumer.from(keys.group(), consumerName);
        streams.forEach(stream -> ownPendingCursors.put(stream, START));
        this.claimCursors = new String[streams.size()];
        Arrays.fill(claimCursors, START);
    }

    /**
     * The next page of entries this consumer was given earlier and never acknowledged, up to
     * {@code count} of each stream not finished yet, in one XREADGROUP; empty when done.
     */
    @SuppressWarnings("unchecked")
    public List<StreamEntry> ownPending(int count) {
        if (ownPendingCursors.isEmpty()) {
            return List.of();
        }
        XReadArgs.StreamOffset<String>[] offsets = ownPendingCursors.entrySet().stream()
                .map(cursor -> XReadArgs.StreamOffset.from(cursor.getKey(), cursor.getValue()))
                .toArray(XReadArgs.StreamOffset[]::new);
        List<StreamEntry> entries = convert(redis.xreadgroup(me, XReadArgs.Builder.count(count), offsets));
        Set<String> answered = new HashSet<>();
        for (StreamEntry entry : entries) {
            ownPendingCursors.put(entry.stream(), entry.id());
            answered.add(entry.stream());
        }
        // A stream that gave nothing after its cursor has no more pending entries of ours.
        ownPendingCursors.keySet().retainAll(answered);
        return entries;
    }

    /**
     * Entries never delivered to the group, from every stream in one XREADGROUP, waiting up to
     * {@code block} for some; about {@code count} in all (Redis takes COUNT per stream).
     */
    @SuppressWarnings("unchecked")
    public List<StreamEntry> next(int count, Duration block) {
        int perStream = Math.max(1, (count + streams.size() - 1) / streams.size());
        XReadArgs.StreamOffset<String>[] offsets = streams.stream().map(XReadArgs.StreamOffset::lastConsumed)
                .toArray(XReadArgs.StreamOffset[]::new);
        return convert(redis.xreadgroup(me, XReadArgs.Builder.count(perStream).block(block), offsets));
    }

    /**
     * Takes over entries that any consumer of the group (a dead replica) held longer than
     * {@code minIdle} without acknowledging them, walking the streams' pending lists in turn (a
     * cursor per stream): returns once it has {@code count} entries, or fewer when it went round
     * every stream once.
     */
    public List<StreamEntry> claimAbandoned(Duration minIdle, int count) {
        List<StreamEntry> claimed = new ArrayList<>();
        int finished = 0;
        // Bounded: an XAUTOCLAIM page that claims nothing still moves its cursor on.
        for (int calls = 0; claimed.size() < count && finished < streams.size() && calls < 4 * streams.size() + 16;
             calls++) {
            String stream = streams.get(claimStream);
            ClaimedMessages<String, String> page = redis.xautoclaim(stream, XAutoClaimArgs.Builder
                    .xautoclaim(me, minIdle, claimCursors[claimStream]).count(count - claimed.size()));
            claimed.addAll(convert(page.getMessages()));
            claimCursors[claimStream] = page.getId();
            if (START.equals(page.getId())) {
                claimStream = (claimStream + 1) % streams.size();
                finished++;
            }
        }
        return claimed;
    }

    private static List<StreamEntry> convert(List<StreamMessage<String, String>> messages) {
        List<StreamEntry> entries = new ArrayList<>(messages.size());
        for (StreamMessage<String, String> message : messages) {
            Map<String, String> body = message.getBody();
            entries.add(new StreamEntry(message.getStream(), message.getId(), body == null ? Map.of() : body));
        }
        return entries;
    }
}
