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

    /** An entry's JSON besides its hex and outcome: names, quotes, id and time. */
    static final int JSON_OVERHEAD_BYTES = 40;
    private static final int FIRST_RUN = 16;
    private static final int MAX_RUN = 64;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final CaptureKeys captureKeys;
    private final CaptureSettings settings;

    /** @param redis the API's own connection: a large read never waits in front of a device's commands */
    public CaptureService(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, CaptureSettings settings) {
        this.redis = redis;
        this.keys = keys;
        this.captureKeys = new CaptureKeys(keys);
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
                captureKeys.captureActive(id), captureKeys.capturesActive(), captureKeys.capture(id), keys.registry()},
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
                captureKeys.captureActive(id), captureKeys.capturesActive(), captureKeys.capture(id), keys.registry()},
                id, Long.toString(settings.retention().toMillis()), keys.instanceEventsPrefix(),
                InstanceEvent.CAPTURE.verb()).thenApply(n -> n == 1L);
    }

    /**
     * Up to {@code limit} entries of the capture stream of {@code imei}, oldest first, and no more
     * than about {@code maxBytes} of them (one entry at least): read in small runs, so a read never
     * holds much more than its page.
     *
     * @param after a stream id: only entries after it (the last id of the previous page), or null from the start
     */
    public CompletionStage<Page> read(Imei imei, int limit, String after, long maxBytes) {
        String id = imei.value();
        CompletableFuture<String> until = redis.hget(captureKeys.captureActive(id), "until").toCompletableFuture();
        CompletableFuture<Cut> cut = new CompletableFuture<>();
        readRun(captureKeys.capture(id), after, limit, maxBytes, new ArrayList<>(), 0, cut);
        CompletableFuture<Long> stream = redis.exists(captureKeys.capture(id)).toCompletableFuture();
        return until.thenCombine(cut, (u, c) -> new Page(u == null ? null : Long.valueOf(u), u != null,
                        c.entries(), c.more()))
                .thenCombine(stream, (page, n) -> new Page(page.until(), page.exists() || n > 0, page.entries(),
                        page.more()));
    }

    /** What a page got: its entries, and whether others follow. */
    private record Cut(List<CaptureEntry> entries, boolean more) {
    }

    /** The next run of entries after {@code after}, onto {@code taken} ({@code used} bytes so far). */
    private void readRun(String key, String after, int limit, long maxBytes, List<CaptureEntry> taken, long used,
                         CompletableFuture<Cut> done) {
        // Sized by the entries seen so far, so small frames are not read a few at a time; at
        // most MAX_RUN, so a run of the largest frames stays far under a page.
        long room = maxBytes - used;
        int run = taken.isEmpty() ? FIRST_RUN
                : (int) Math.max(1, Math.min(MAX_RUN, room / Math.max(1, used / taken.size()) + 1));
        int want = Math.min(run, limit - taken.size() + 1);
        Range<String> range = Range.from(after == null ? Range.Boundary.unbounded() : Range.Boundary.excluding(after),
                Range.Boundary.unbounded());
        redis.xrange(key, range, Limit.from(want)).whenComplete((messages, error) -> {
            if (error != null) {
                done.completeExceptionally(error);
                return;
            }
            long bytes = used;
            for (StreamMessage<String, String> message : messages) {
                CaptureEntry entry = entry(message);
                long cost = CaptureSettings.entryCost(entry.hex(), entry.outcome()) + JSON_OVERHEAD_BYTES;
                if (taken.size() == limit || (!taken.isEmpty() && bytes + cost > maxBytes)) {
                    done.complete(new Cut(taken, true));
                    return;
                }
                taken.add(entry);
                bytes += cost;
            }
            if (messages.size() < want) {
                done.complete(new Cut(taken, false));
            } else {
                readRun(key, messages.get(messages.size() - 1).getId(), limit, maxBytes, taken, bytes, done);
            }
        });
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
