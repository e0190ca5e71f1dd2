package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.Consumer;
import io.lettuce.core.XClaimArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.models.stream.PendingMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What this replica says about the entries it holds: acknowledged once their records reached the
 * sink or the dead-letter stream, and meanwhile touched now and then so that no other replica
 * takes them over as abandoned (XAUTOCLAIM goes by idle time).
 */
public final class EntryAcks {

    private static final int PAGE = 1000;

    private final RedisCommands<String, String> redis;
    private final StreamKeys keys;
    private final Consumer<String> me;

    public EntryAcks(RedisCommands<String, String> redis, StreamKeys keys, String consumerName) {
        this.redis = redis;
        this.keys = keys;
        this.me = Consumer.from(keys.group(), consumerName);
    }

    public void ack(List<String> ids) {
        if (!ids.isEmpty()) {
            redis.xack(keys.telemetry(), keys.group(), ids.toArray(String[]::new));
        }
    }

    /** The consumer that holds what stopped replicas handed back, until a live one claims it. */
    public static final String HANDED_BACK = "handed-back";

    /**
     * At a clean stop, moves every entry this consumer still has pending to {@link #HANDED_BACK},
     * idle for {@code idle}, so the other replicas take them over at their next claim instead of a
     * claim period later; then removes this consumer's name from the group, which a Deployment's
     * pods, new names each time, would otherwise pile up.
     *
     * @return how many entries were handed back
     */
    public int handBack(Duration idle) {
        int handed = 0;
        String after = "-";
        while (true) {
            List<PendingMessage> page = redis.xpending(keys.telemetry(), me, Range.create(after, "+"),
                    Limit.from(PAGE));
            List<String> ids = new ArrayList<>(page.size());
            for (PendingMessage message : page) {
                if (!message.getId().equals(after)) {
                    ids.add(message.getId());
                }
            }
            if (ids.isEmpty()) {
                // Nothing pending any more: deleting the name loses nothing.
                redis.xgroupDelconsumer(keys.telemetry(), me);
                return handed;
            }
            redis.xclaim(keys.telemetry(), Consumer.from(keys.group(), HANDED_BACK),
                    XClaimArgs.Builder.justid().minIdleTime(0).idle(idle), ids.toArray(String[]::new));
            handed += ids.size();
            after = ids.get(ids.size() - 1);
        }
    }

    /** Resets the idle time of held entries (XCLAIM JUSTID: the delivery count stays). */
    public void touch(List<String> ids) {
        for (int from = 0; from < ids.size(); from += PAGE) {
            List<String> page = ids.subList(from, Math.min(ids.size(), from + PAGE));
            redis.xclaim(keys.telemetry(), me, XClaimArgs.Builder.justid().minIdleTime(0),
                    page.toArray(String[]::new));
        }
    }
}
