package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.Consumer;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.models.stream.ClaimedMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * This replica's reads in the consumer group: its own pending entries (given to it before a
 * restart and never acknowledged), new entries, and entries a dead replica left behind. Runs on
 * one connection of its own, because XREADGROUP blocks it.
 */
public final class GroupReader {

    private final RedisCommands<String, String> redis;
    private final StreamKeys keys;
    private final Consumer<String> me;
    private String ownPendingCursor = "0-0";
    private String claimCursor = "0-0";

    public GroupReader(RedisCommands<String, String> redis, StreamKeys keys, String consumerName) {
        this.redis = redis;
        this.keys = keys;
        this.me = Consumer.from(keys.group(), consumerName);
    }

    /** The next page of entries this consumer was given earlier and never acknowledged; empty when done. */
    public List<StreamEntry> ownPending(int count) {
        List<StreamMessage<String, String>> page = redis.xreadgroup(me, XReadArgs.Builder.count(count),
                XReadArgs.StreamOffset.from(keys.telemetry(), ownPendingCursor));
        List<StreamEntry> entries = convert(page);
        if (!entries.isEmpty()) {
            ownPendingCursor = entries.get(entries.size() - 1).id();
        }
        return entries;
    }

    /** Entries never delivered to the group, waiting up to {@code block} for some. */
    public List<StreamEntry> next(int count, Duration block) {
        return convert(redis.xreadgroup(me, XReadArgs.Builder.count(count).block(block),
                XReadArgs.StreamOffset.lastConsumed(keys.telemetry())));
    }

    /**
     * Takes over entries that any consumer of the group (a dead replica) held longer than
     * {@code minIdle} without acknowledging them; one page per call, walking the whole pending list.
     */
    public List<StreamEntry> claimAbandoned(Duration minIdle, int count) {
        ClaimedMessages<String, String> claimed = redis.xautoclaim(keys.telemetry(),
                XAutoClaimArgs.Builder.xautoclaim(me, minIdle, claimCursor).count(count));
        claimCursor = claimed.getId();
        return convert(claimed.getMessages());
    }

    private static List<StreamEntry> convert(List<StreamMessage<String, String>> messages) {
        List<StreamEntry> entries = new ArrayList<>(messages.size());
        for (StreamMessage<String, String> message : messages) {
            Map<String, String> body = message.getBody();
            entries.add(new StreamEntry(message.getId(), body == null ? Map.of() : body));
        }
        return entries;
    }
}
