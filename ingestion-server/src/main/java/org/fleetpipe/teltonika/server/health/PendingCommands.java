package org.fleetpipe.teltonika.server.health;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.ops.OpsSettings;

/**
 * The queued commands of the devices that have waited longest (at most {@link #MAX_DEVICES}), read
 * in pages of {@link #PAGE} devices, each page pipelined: the registry (one HMGET), each queue's
 * length and head, the head's hash, and for online devices whether one is in flight. A queued
 * command is due when its device is online; stuck when, besides, nothing of that device is in
 * flight and the head waited longer than {@code stuckAfter} (the commands behind a head wait for
 * it: at most one stuck command per device). Commands of offline devices are never stuck.
 */
final class PendingCommands {

    static final String QUEUE = "pending-commands";
    static final int MAX_DEVICES = 10_000;
    static final int PAGE = 500;

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final OpsSettings settings;
    private final QueueStatusRules rules;
    private final Duration timeout;
    private Map<String, Departures.Queue> previous;
    private long previousAt;

    PendingCommands(RedisAsyncCommands<String, String> redis, RedisKeys keys, OpsSettings settings,
                    QueueStatusRules rules, Duration timeout) {
        this.redis = redis;
        this.keys = keys;
        this.settings = settings;
        this.rules = rules;
        this.timeout = timeout;
    }

    QueueHealth read(long now) {
        long stuckBefore = now - settings.stuckAfter().toMillis();
        RedisFuture<Long> devices = redis.zcard(keys.commandsQueued());
        List<ScoredValue<String>> oldest = await(redis.zrangeWithScores(keys.commandsQueued(), 0, MAX_DEVICES - 1));
        Map<String, Departures.Queue> seen = new HashMap<>();
        long size = 0;
        long due = 0;
        long stuck = 0;
        long online = 0;
        long oldestAge = 0;
        long ageSum = 0;
        long heads = 0;
        for (int from = 0; from < oldest.size(); from += PAGE) {
            List<ScoredValue<String>> page = oldest.subList(from, Math.min(oldest.size(), from + PAGE));
            String[] imeis = page.stream().map(ScoredValue::getValue).toArray(String[]::new);
            RedisFuture<List<KeyValue<String, String>>> owners = redis.hmget(keys.registry(), imeis);
            List<RedisFuture<Long>> lengths = new ArrayList<>();
            List<RedisFuture<String>> headIds = new ArrayList<>();
            for (String imei : imeis) {
                lengths.add(redis.llen(keys.commandQueue(imei)));
                headIds.add(redis.lindex(keys.commandQueue(imei), 0));
            }
            List<KeyValue<String, String>> owner = await(owners);
            List<RedisFuture<List<KeyValue<String, String>>>> headHashes = new ArrayList<>();
            List<RedisFuture<Boolean>> inFlight = new ArrayList<>();
            for (int i = 0; i < imeis.length; i++) {
                String head = await(headIds.get(i));
                headHashes.add(head == null ? null : redis.hmget(keys.command(head), "status", "updated_at"));
                String holder = owner.get(i).getValueOrElse(null);
                inFlight.add(holder == null ? null : redis.hexists(keys.commandsInFlight(holder), imeis[i]));
            }
            for (int i = 0; i < imeis.length; i++) {
                long length = await(lengths.get(i));
                String head = await(headIds.get(i));
                seen.put(imeis[i], new Departures.Queue(length, head));
                size += length;
                long queuedAt = headHashes.get(i) == null ? now : queuedAt(await(headHashes.get(i)), now);
                long age = Math.max(0, now - queuedAt);
                if (head != null) {
                    oldestAge = Math.max(oldestAge, age);
                    ageSum += age;
                    heads++;
                }
                if (inFlight.get(i) == null) {
                    continue;
                }
                online++;
                due += length;
                boolean moving = await(inFlight.get(i));
                if (!moving && head != null && queuedAt < stuckBefore) {
                    stuck++;
                }
            }
        }
        double rate = previous == null ? 0 : Departures.perMinute(Departures.pendingLeft(previous, seen),
                now - previousAt);
        previous = seen;
        previousAt = now;
        QueueStatusRules.Verdict verdict = rules.commands(stuck, due);
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("due", due);
        detail.put("devices", await(devices));
        detail.put("devices_examined", (long) oldest.size());
        detail.put("devices_online", online);
        return new QueueHealth(QUEUE, size, oldestAge, heads == 0 ? 0 : ageSum / heads, rate, stuck, verdict.status(),
                verdict.reason(), detail);
    }

    /** When the head entered the queue (queued, or handed back): its {@code updated_at} while it is queued. */
    private static long queuedAt(List<KeyValue<String, String>> hash, long now) {
        String status = hash.get(0).getValueOrElse(null);
        String updated = hash.get(1).getValueOrElse(null);
        if (!"queued".equals(status) || updated == null) {
            return now; // taken or failed since LINDEX, or a hash without timestamps: not waiting
        }
        try {
            return Long.parseLong(updated);
        } catch (NumberFormatException e) {
            return now;
        }
    }

    private <T> T await(CompletionStage<T> stage) {
        return Blocking.await(stage, timeout);
    }
}
