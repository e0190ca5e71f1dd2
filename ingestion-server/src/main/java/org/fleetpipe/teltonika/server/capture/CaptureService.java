package org.fleetpipe.teltonika.server.capture;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.InstanceEvent;
import org.fleetpipe.teltonika.registry.RedisKeys;

/**
 * What the operator API does with captures: start one (routed to the instance holding the device,
 * like a command), stop one, and read a device's capture stream.
 */
public final class CaptureService {

    /** A start request's outcome. */
    public sealed interface Start permits Started, Full {
    }

    /**
     * The capture runs until {@code until} (epoch ms).
     *
     * @param instance the instance holding the device now, or null when none does (it is captured from its login)
     */
    public record Started(long until, String instance) implements Start {
    }

    /** Refused: {@code max} captures are active already. */
    public record Full(int max) implements Start {
    }

    /**
     * A page of a device's capture stream, oldest first.
     *
     * @param until  when the active capture ends (epoch ms), or null when none is active
     * @param exists false when there is neither an active capture nor a stream
     * @param more   entries follow the last one of this page
     */
    public record Page(Long until, boolean exists, List<CaptureEntry> entries, boolean more) {
    }

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final CaptureSettings settings;

    public CaptureService(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, CaptureSettings settings) {
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
    }

    public CaptureSettings settings() {
        return settings;
    }

    /** Starts capturing {@code imei} for {@code duration} from now (a capture already active gets the new end). */
    public CompletionStage<Start> start(Imei imei, Duration duration) {
        String id = imei.value();
        long now = System.currentTimeMillis();
        long until = now + duration.toMillis();
        return CaptureScripts.START.<List<Object>>call(redis, ScriptOutputType.MULTI, new String[] {
                keys.captureActive(id), keys.capturesActive(), keys.capture(id), keys.registry()},
                id, Long.toString(now), Long.toString(until), Integer.toString(settings.maxCaptures()),
                Long.toString(until + settings.retention().toMillis()), keys.instanceEventsPrefix(),
                InstanceEvent.CAPTURE.verb())
                .thenApply(reply -> {
                    if (((Long) reply.get(0)) == 0L) {
                        return new Full(settings.maxCaptures());
                    }
                    String owner = String.valueOf(reply.get(1));
                    return new Started(until, owner.isEmpty() ? null : owner);
                });
    }

    /** Stops the capture of {@code imei}; completes with whether one was active. */
    public CompletionStage<Boolean> stop(Imei imei) {
        String id = imei.value();
        return CaptureScripts.STOP.<Long>call(redis, ScriptOutputType.INTEGER, new String[] {
                keys.captureActive(id), keys.capturesActive(), keys.capture(id), keys.registry()},
                id, Long.toString(settings.retention().toMillis()), keys.instanceEventsPrefix(),
                InstanceEvent.CAPTURE.verb()).thenApply(n -> n == 1L);
    }

    /**
     * Up to {@code limit} entries of the capture stream of {@code imei}, oldest first.
     *
     * @param after a stream id: only entries after it (the last id of the previous page), or null from the start
     */
    public CompletionStage<Page> read(Imei imei, int limit, String after) {
        String id = imei.value();
        CompletableFuture<String> until = redis.hget(keys.captureActive(id), "until").toCompletableFuture();
        Range<String> range = Range.from(after == null ? Range.Boundary.unbounded() : Range.Boundary.excluding(after),
                Range.Boundary.unbounded());
        CompletableFuture<List<StreamMessage<String, String>>> messages = redis.xrange(keys.capture(id), range,
                Limit.from(limit + 1L)).toCompletableFuture();
        CompletableFuture<Long> stream = redis.exists(keys.capture(id)).toCompletableFuture();
        return until.thenCombine(messages, (u, m) -> {
            List<CaptureEntry> entries = new ArrayList<>(Math.min(m.size(), limit));
            for (int i = 0; i < m.size() && i < limit; i++) {
                entries.add(entry(m.get(i)));
            }
            return new Page(u == null ? null : Long.valueOf(u), u != null, entries, m.size() > limit);
        }).thenCombine(stream, (page, n) -> new Page(page.until(), page.exists() || n > 0, page.entries(),
                page.more()));
    }

    private static CaptureEntry entry(StreamMessage<String, String> message) {
        Map<String, String> body = message.getBody();
        String at = body.getOrDefault("at", "0");
        long millis;
        try {
            millis = Long.parseLong(at);
        } catch (NumberFormatException e) {
            millis = 0;
        }
        return new CaptureEntry(message.getId(), millis, body.getOrDefault("dir", ""), body.getOrDefault("hex", ""),
                body.getOrDefault("outcome", ""));
    }
}
