package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.Consumer;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.XClaimArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.models.stream.PendingMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What this replica says about the entries it holds: acknowledged once their records reached the
 * sink or the dead-letter stream, and meanwhile touched now and then so that no other replica
 * takes them over as abandoned (XAUTOCLAIM goes by idle time). Each on the stream (partition) the
 * entry came from.
 */
public final class EntryAcks {

    private static final int PAGE = 1000;

    private final RedisClusterCommands<String, String> redis;
    private final StreamKeys keys;
    private final Consumer<String> me;

    public EntryAcks(RedisClusterCommands<String, String> redis, StreamKeys keys, String consumerName) {
        this.redis = redis;
        this.keys = keys;
        this.me = Consumer.from(keys.group(), consumerName);
    }

    public void ack(List<EntryId> entries) {
        byStream(entries).forEach((stream, ids) -> redis.xack(stream, keys.group(), ids.toArray(String[]::new)));
    }

    /** The consumer that holds what stopped replicas handed back, until a live one claims it. */
    public static final String HANDED_BACK = "handed-back";

    /**
     * At a clean stop, moves every entry this consumer still has pending, on every stream, to
     * {@link #HANDED_BACK}, idle for {@code idle}, so the other replicas take them over at their
     * next claim instead of a claim period later; then removes this consumer's name from the group,
     * which a Deployment's pods, new names each time, would otherwise pile up.
     *
     * @return how many entries were handed back
     */
    public int handBack(Duration idle) {
        int handed = 0;
        for (String stream : keys.telemetryStreams()) {
            handed += handBack(stream, idle);
        }
        return handed;
    }

    /** As {@link #handBack(Duration)}, on one stream: a partition this replica gives up. */
    public int handBack(String stream, Duration idle) {
        int handed = 0;
        String after = "-";
        while (true) {
            List<PendingMessage> page = redis.xpending(stream, me, Range.create(after, "+"), Limit.from(PAGE));
            List<String> ids = new ArrayList<>(page.size());
            for (PendingMessage message : page) {
                if (!message.getId().equals(after)) {
                    ids.add(message.getId());
                }
            }
            if (ids.isEmpty()) {
                // Nothing pending any more: deleting the name loses nothing.
                redis.xgroupDelconsumer(stream, me);
                return handed;
            }
            redis.xclaim(stream, Consumer.from(keys.group(), HANDED_BACK),
                    XClaimArgs.Builder.justid().minIdleTime(0).idle(idle), ids.toArray(String[]::new));
            handed += ids.size();
            after = ids.get(ids.size() - 1);
        }
    }

    /** Resets the idle time of held entries (XCLAIM JUSTID: the delivery count stays). */
    public void touch(List<EntryId> entries) {
        byStream(entries).forEach((stream, ids) -> {
            for (int from = 0; from < ids.size(); from += PAGE) {
                List<String> page = ids.subList(from, Math.min(ids.size(), from + PAGE));
                redis.xclaim(stream, me, XClaimArgs.Builder.justid().minIdleTime(0), page.toArray(String[]::new));
            }
        });
    }

    private static Map<String, List<String>> byStream(List<EntryId> entries) {
        Map<String, List<String>> byStream = new LinkedHashMap<>();
        for (EntryId entry : entries) {
            byStream.computeIfAbsent(entry.stream(), stream -> new ArrayList<>()).add(entry.id());
        }
        return byStream;
    }
}
