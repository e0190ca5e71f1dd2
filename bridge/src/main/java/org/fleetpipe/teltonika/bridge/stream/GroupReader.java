package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolKeyword;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * This replica's reads in the consumer group, on the telemetry streams it is told to read (those of
 * the partitions it holds a lease on, a set that changes while running): new entries, everything
 * pending on a stream it just took over, and entries left behind on its streams. Runs on one
 * connection of its own, because XREADGROUP blocks it. The replies are read by
 * {@link EntryReplyOutput}: each entry's fields stay bytes until the payload is written from them.
 * On a standalone Redis that connection is a {@code RespSocket}, the reply read by the calling
 * thread itself; on a cluster, Lettuce's, which follows the slots.
 */
public final class GroupReader {

    private static final String START = "0-0";
    private static final int HISTORY_PAGE = 200;

    /** Where the reads go: Lettuce's {@code dispatch} or a {@code RespSocket}'s, the same call. */
    @FunctionalInterface
    public interface Reads {
        <T> T dispatch(ProtocolKeyword type, CommandOutput<String, String, T> output, CommandArgs<String, String> args);
    }

    private final Reads reads;
    private final RedisClusterCommands<String, String> redis;
    private final boolean cluster;
    private int waitTurn;
    private final String group;
    private final String consumerName;
    /** Per stream, where the walk for abandoned entries goes on. */
    private final Map<String, String> claimCursors = new HashMap<>();
    private int claimStream;

    public GroupReader(RedisClusterCommands<String, String> redis, StreamKeys keys, String consumerName) {
        this(redis::dispatch, redis, false, keys, consumerName);
    }

    /**
     * Reads through {@code reads}, counts pending entries on {@code redis}; {@code cluster}: a Redis
     * Cluster, where one XREADGROUP may name keys of one slot only.
     */
    public GroupReader(Reads reads, RedisClusterCommands<String, String> redis, boolean cluster, StreamKeys keys,
                       String consumerName) {
        this.reads = reads;
        this.cluster = cluster;
        this.redis = redis;
        this.group = keys.group();
        this.consumerName = consumerName;
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
    public List<StreamEntry> next(List<String> streams, int count, Duration block) {
        if (streams.isEmpty()) {
            return List.of();
        }
        int perStream = Math.max(1, (count + streams.size() - 1) / streams.size());
        if (cluster && streams.size() > 1) {
            return nextApart(streams, perStream, block);
        }
        return read(streams, perStream, block);
    }

    /**
     * On a cluster, each partition in a call of its own, without waiting; only a round that found
     * nothing waits, on one stream in turn, for {@code block} shared among them.
     */
    private List<StreamEntry> nextApart(List<String> streams, int perStream, Duration block) {
        List<StreamEntry> entries = new ArrayList<>();
        for (String stream : streams) {
            entries.addAll(read(List.of(stream), perStream, null));
        }
        if (entries.isEmpty()) {
            String stream = streams.get(Math.floorMod(waitTurn++, streams.size()));
            Duration wait = block.dividedBy(streams.size());
            entries.addAll(read(List.of(stream), perStream, wait.isZero() ? Duration.ofMillis(1) : wait));
        }
        return entries;
    }

    /** XREADGROUP of new entries ({@code >}) on {@code streams}, blocking up to {@code block} unless null. */
    private List<StreamEntry> read(List<String> streams, int perStream, Duration block) {
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("GROUP").add(group)
                .add(consumerName).add("COUNT").add(perStream);
        if (block != null) {
            args.add("BLOCK").add(block.toMillis());
        }
        // As keys: a cluster connection routes the command by its first key.
        args.add("STREAMS").addKeys(streams);
        for (int i = 0; i < streams.size(); i++) {
            args.add(">");
        }
        return reads.dispatch(CommandType.XREADGROUP, EntryReplyOutput.read(), args);
    }

    /**
     * Takes over everything pending on {@code stream}, whoever holds it (min idle 0): called only with
     * the partition's lease in hand, so no other replica is delivering these entries. Pages in id
     * order, from {@code cursor} ({@code 0-0} to begin).
     */
    public ClaimPage takeOver(String stream, String cursor, int count) {
        return claim(stream, Duration.ZERO, cursor, count);
    }

    /** One XAUTOCLAIM page: entries pending longer than {@code minIdle}, from {@code cursor}. */
    private ClaimPage claim(String stream, Duration minIdle, String cursor, int count) {
        EntryReplyOutput reply = EntryReplyOutput.claim(stream);
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).addKey(stream).add(group)
                .add(consumerName).add(minIdle.toMillis()).add(cursor).add("COUNT").add(count);
        List<StreamEntry> entries = reads.dispatch(CommandType.XAUTOCLAIM, reply, args);
        if (reply.unnamed() > 0) {
            entries = new ArrayList<>(entries);
            entries.addAll(deletedClaimed(stream, cursor, reply.cursor()));
        }
        return new ClaimPage(entries, reply.cursor());
    }

    /**
     * Redis 6.2 claims a pending entry deleted since it was read (trimmed while the group lagged) and
     * answers nil without its id, leaving it on this consumer's pending list for good. The
     * consumer's own history names it ({@code [id, nil]}): returned as trimmed entries (empty body),
     * which the lanes acknowledge. Those of the page's range {@code [from, to)} only; Redis 7 takes
     * such entries off the list itself.
     */
    private List<StreamEntry> deletedClaimed(String stream, String from, String to) {
        List<StreamEntry> deleted = new ArrayList<>();
        boolean toTheEnd = START.equals(to);
        String after = EntryIds.before(from);
        // Bounded: each page moves on through this consumer's pending list, which ends.
        for (int pages = 0; pages < 10_000; pages++) {
            CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("GROUP").add(group)
                    .add(consumerName).add("COUNT").add(HISTORY_PAGE).add("STREAMS").addKey(stream).add(after);
            List<StreamEntry> page = reads.dispatch(CommandType.XREADGROUP, EntryReplyOutput.read(), args);
            for (StreamEntry entry : page) {
                if (!toTheEnd && EntryIds.compare(entry.id(), to) >= 0) {
                    return deleted;
                }
                if (entry.body().isEmpty()) {
                    deleted.add(entry);
                }
            }
            if (page.size() < HISTORY_PAGE) {
                return deleted;
            }
            after = page.get(page.size() - 1).id();
        }
        return deleted;
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
            ClaimPage page = claim(stream, minIdle, claimCursors.getOrDefault(stream, START), count - claimed.size());
            claimed.addAll(page.entries());
            claimCursors.put(stream, page.next());
            if (page.last()) {
                claimStream = Math.floorMod(claimStream + 1, streams.size());
                finished++;
            }
        }
        return claimed;
    }
}
