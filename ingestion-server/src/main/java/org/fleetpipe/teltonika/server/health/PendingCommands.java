package org.fleetpipe.teltonika.server.health;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandKeys;

/**
 * The queued commands of the devices that have waited longest (at most {@link #MAX_DEVICES}), read
 * in pages of {@link #PAGE} devices, one read-only script call per page (read-device-queues.lua):
 * the registry entry, each queue's length and head, the head's hash, and whether one is in flight.
 * The pages' calls are sent together (one round trip). A queued
 * command is due when its device is online; stuck when, besides, nothing of that device is in
 * flight and the head waited longer than {@code stuckAfter} (the commands behind a head wait for
 * it: at most one stuck command per device). Commands of offline devices are never stuck. The
 * stuck devices that waited longest are named ({@link StuckDevices}).
 */
final class PendingCommands {

    static final String QUEUE = "pending-commands";
    static final int MAX_DEVICES = 10_000;
    static final int PAGE = 250;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final CommandKeys commandKeys;
    private final QueueHealthSettings settings;
    private final QueueStatusRules rules;
    private final Duration timeout;
    private Map<String, Departures.Queue> previous;
    private long previousAt;

    PendingCommands(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, QueueHealthSettings settings,
                    QueueStatusRules rules, Duration timeout) {
        this.redis = redis;
        this.keys = keys;
        this.commandKeys = new CommandKeys(keys);
        this.settings = settings;
        this.rules = rules;
        this.timeout = timeout;
    }

    QueueHealth read(long now) {
        long stuckBefore = now - settings.stuckAfter().toMillis();
        RedisFuture<Long> devices = redis.zcard(commandKeys.commandsQueued());
        List<ScoredValue<String>> oldest = await(redis.zrangeWithScores(commandKeys.commandsQueued(), 0,
                MAX_DEVICES - 1));
        Map<String, Departures.Queue> seen = new HashMap<>();
        long size = 0;
        long due = 0;
        long stuck = 0;
        long online = 0;
        long oldestAge = 0;
        long ageSum = 0;
        long heads = 0;
        StuckDevices stuckDevices = new StuckDevices();
        List<CompletionStage<List<Object>>> pages = new ArrayList<>();
        for (int from = 0; from < oldest.size(); from += PAGE) {
            List<String> args = new ArrayList<>(List.of(commandKeys.commandQueuePrefix(), commandKeys.commandPrefix(),
                    commandKeys.commandsInFlight("")));
            for (ScoredValue<String> d : oldest.subList(from, Math.min(oldest.size(), from + PAGE))) {
                args.add(d.getValue());
            }
            pages.add(HealthScripts.READ_DEVICE_QUEUES.call(redis, ScriptOutputType.MULTI,
                    new String[] {keys.registry()}, args.toArray(String[]::new)));
        }
        for (int p = 0; p < pages.size(); p++) {
            List<Object> page = await(pages.get(p));
            for (int i = 0; i < page.size(); i += 5) {
                String imei = oldest.get(p * PAGE + i / 5).getValue();
                boolean isOnline = !String.valueOf(page.get(i)).isEmpty();
                long length = Long.parseLong(String.valueOf(page.get(i + 1)));
                String head = String.valueOf(page.get(i + 2));
                head = head.isEmpty() ? null : head;
                long queuedAt = parse(String.valueOf(page.get(i + 3)), now);
                boolean moving = "1".equals(String.valueOf(page.get(i + 4)));
                seen.put(imei, new Departures.Queue(length, head));
                size += length;
                long age = Math.max(0, now - queuedAt);
                if (head != null) {
                    oldestAge = Math.max(oldestAge, age);
                    ageSum += age;
                    heads++;
                }
                if (!isOnline) {
                    continue;
                }
                online++;
                due += length;
                if (!moving && head != null && queuedAt < stuckBefore) {
                    stuck++;
                    stuckDevices.add(imei, head, age);
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
        detail.put("stuck_devices", stuckDevices.list());
        return new QueueHealth(QUEUE, size, oldestAge, heads == 0 ? 0 : ageSum / heads, rate, stuck, verdict.status(),
                verdict.reason(), detail);
    }

    /** When the head entered the queue (queued, or handed back); now when it is not waiting (taken since, or no time). */
    private static long parse(String queuedAt, long now) {
        try {
            return queuedAt.isEmpty() ? now : Long.parseLong(queuedAt);
        } catch (NumberFormatException e) {
            return now;
        }
    }

    private <T> T await(CompletionStage<T> stage) {
        return Blocking.await(stage, timeout);
    }
}
