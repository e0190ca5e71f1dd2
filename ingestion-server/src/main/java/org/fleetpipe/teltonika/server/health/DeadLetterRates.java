package org.fleetpipe.teltonika.server.health;

import io.lettuce.core.Range;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.redis.Blocking;

/**
 * A dead-letter sorted set (score = when the entry was added), judged by the entries added within
 * the window (ZCOUNT): a burst stops counting once it is older than the window, however long the
 * set keeps it. The mean age is estimated from counts in age bands (a few ZCOUNTs, never reading
 * the entries): each band's entries count at the band's middle.
 */
final class DeadLetterRates {

    /** Upper ends of the age bands past the window; the last band ends at the oldest entry. */
    private static final List<Duration> BANDS = List.of(Duration.ofHours(1), Duration.ofHours(6), Duration.ofDays(1),
            Duration.ofDays(7));

    private final RedisClusterAsyncCommands<String, String> redis;
    private final QueueHealthSettings settings;
    private final QueueStatusRules rules;
    private final Duration timeout;

    DeadLetterRates(RedisClusterAsyncCommands<String, String> redis, QueueHealthSettings settings,
                    QueueStatusRules rules, Duration timeout) {
        this.redis = redis;
        this.settings = settings;
        this.rules = rules;
        this.timeout = timeout;
    }

    QueueHealth read(String queue, String key, long now) {
        long window = settings.deadLetterWindow().toMillis();
        RedisFuture<Long> size = redis.zcard(key);
        RedisFuture<List<ScoredValue<String>>> first = redis.zrangeWithScores(key, 0, 0);
        List<Long> edges = new ArrayList<>(List.of(0L, window));
        for (Duration band : BANDS) {
            if (band.toMillis() > window) {
                edges.add(band.toMillis());
            }
        }
        List<RedisFuture<Long>> counts = new ArrayList<>();
        for (int i = 0; i < edges.size(); i++) {
            // Entries aged [edges[i], edges[i+1]), i.e. scored (now - edges[i+1], now - edges[i]]; the last band is open.
            Range.Boundary<Long> upper = i == 0 ? Range.Boundary.unbounded() : Range.Boundary.including(now - edges.get(i));
            Range.Boundary<Long> lower = i + 1 < edges.size()
                    ? Range.Boundary.excluding(now - edges.get(i + 1)) : Range.Boundary.unbounded();
            counts.add(redis.zcount(key, Range.from(lower, upper)));
        }
        List<ScoredValue<String>> oldest = await(first);
        long oldestAge = oldest.isEmpty() ? 0 : Math.max(0, now - (long) oldest.get(0).getScore());
        long total = 0;
        double ageSum = 0;
        for (int i = 0; i < edges.size(); i++) {
            long count = await(counts.get(i));
            long end = i + 1 < edges.size() ? Math.min(edges.get(i + 1), Math.max(oldestAge, edges.get(i)))
                    : Math.max(oldestAge, edges.get(i));
            total += count;
            ageSum += count * (edges.get(i) + end) / 2.0;
        }
        long added = await(counts.get(0));
        QueueStatusRules.Verdict verdict = rules.deadLetters(added);
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("added_in_window", added);
        detail.put("window_ms", window);
        return new QueueHealth(queue, await(size), oldestAge, total == 0 ? 0 : Math.round(ageSum / total),
                Departures.perMinute(added, window), 0, verdict.status(), verdict.reason(), detail);
    }

    private <T> T await(CompletionStage<T> stage) {
        return Blocking.await(stage, timeout);
    }
}
