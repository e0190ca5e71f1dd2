package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.Consumer;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.models.stream.ClaimedMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * This replica's reads in the consumer group, on the telemetry streams it is told to read (those of
 * the partitions it holds a lease on, a set that changes while running): new entries, everything
 * pending on a stream it just took over, and entries left behind on its streams. Runs on one
 * connection of its own, because XREADGROUP blocks it.
 */
public final class GroupReader {

    private static final String START = "0-0";

    private final RedisClusterCommands<String, String> redis;
    private final boolean cluster;
    private int waitTurn;
    private final String group;
    private final String consumerName;
    private final Consumer<String> me;
    /** Per stream, where the walk for abandoned entries goes on. */
    private final Map<String, String> claimCursors = new HashMap<>();
    private int claimStream;

    public GroupReader(RedisClusterCommands<String, String> redis, StreamKeys keys, String consumerName) {
        this(redis, false, keys, consumerName);
    }

    /** As above; {@code cluster}: a Redis Cluster, where one XREADGROUP may name keys of one slot only. */
    public GroupReader(RedisClusterCommands<String, String> redis, boolean cluster, StreamKeys keys,
                       String consumerName) {
        this.cluster = cluster;
        this.redis = redis;
        this.group = keys.group();
        this.consumerName = consumerName;
        this.me = Consumer.from(keys.group(), consumerName);
    }

    /** One page of a takeover: the entries claimed, and the cursor to go on from ({@code 0-0}: done). */
    public record ClaimPage(List<StreamEntry> entries, String next) {

        public boolean last() {
            return START.equals(next);
        }
    }

    /**
     * Entries never delivered to the group, from {@code streams} in one XREADGROUP, waiting up to
     * {@code block} for some; about {@code count} in all (Redis takes COUNT per stream).
     */
    @SuppressWarnings("unchecked")
    public List<StreamEntry> next(List<String> streams, int count, Duration block) {
        if (streams.isEmpty()) {
            return List.of();
        }
        int perStream = Math.max(1, (count + streams.size() - 1) / streams.size());
        if (cluster && streams.size() > 1) {
            return nextApart(streams, perStream, block);
        }
        XReadArgs.StreamOffset<String>[] offsets = streams.stream().map(XReadArgs.StreamOffset::lastConsumed)
                .toArray(XReadArgs.StreamOffset[]::new);
        return convert(redis.xreadgroup(me, XReadArgs.Builder.count(perStream).block(block), offsets));
    }

    /**
     * On a cluster, each partition in a call of its own, without waiting; only a round that found
     * nothing waits, on one stream in turn, for {@code block} shared among them.
     */
    private List<StreamEntry> nextApart(List<String> streams, int perStream, Duration block) {
        List<StreamEntry> entries = new ArrayList<>();
        for (String stream : streams) {
            entries.addAll(convert(redis.xreadgroup(me, XReadArgs.Builder.count(perStream),
                    XReadArgs.StreamOffset.lastConsumed(stream))));
        }
        if (entries.isEmpty()) {
            String stream = streams.get(Math.floorMod(waitTurn++, streams.size()));
            Duration wait = block.dividedBy(streams.size());
            entries.addAll(convert(redis.xreadgroup(me, XReadArgs.Builder.count(perStream)
                    .block(wait.isZero() ? Duration.ofMillis(1) : wait), XReadArgs.StreamOffset.lastConsumed(stream))));
        }
        return entries;
    }

    /**
     * Takes over everything pending on {@code stream}, whoever holds it (min idle 0): called only with
     * the partition's lease in hand, so no other replica is delivering these entries. Pages in id
     * order, from {@code cursor} ({@code 0-0} to begin).
     */
    public ClaimPage takeOver(String stream, String cursor, int count) {
        ClaimedMessages<String, String> page = redis.xautoclaim(stream,
                XAutoClaimArgs.Builder.xautoclaim(me, Duration.ZERO, cursor).count(count));
        return new ClaimPage(convert(page.getMessages()), page.getId());
    }

    /** How many entries of {@code stream} this consumer has pending (from before a restart). */
    public long ownPendingCount(String stream) {
        Long own = redis.xpending(stream, group).getConsumerMessageCount().get(consumerName);
        return own == null ? 0 : own;
    }

    /**
     * Takes over entries that any consumer of the group held longer than {@code minIdle} without
     * acknowledging them, walking the pending lists of {@code streams} in turn (a cursor per stream):
     * returns once it has {@code count} entries, or fewer when it went round every stream once.
     */
    public List<StreamEntry> claimAbandoned(List<String> streams, Duration minIdle, int count) {
        List<StreamEntry> claimed = new ArrayList<>();
        if (streams.isEmpty()) {
            return claimed;
        }
        int finished = 0;
        // Bounded: an XAUTOCLAIM page that claims nothing still moves its cursor on.
        for (int calls = 0; claimed.size() < count && finished < streams.size() && calls < 4 * streams.size() + 16;
             calls++) {
            String stream = streams.get(Math.floorMod(claimStream, streams.size()));
            ClaimedMessages<String, String> page = redis.xautoclaim(stream, XAutoClaimArgs.Builder
                    .xautoclaim(me, minIdle, claimCursors.getOrDefault(stream, START)).count(count - claimed.size()));
            claimed.addAll(convert(page.getMessages()));
            claimCursors.put(stream, page.getId());
            if (START.equals(page.getId())) {
                claimStream = Math.floorMod(claimStream + 1, streams.size());
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
