package org.fleetpipe.teltonika.server.health;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandKeys;

/**
 * The commands in flight on every instance ({@code commands:inflight:{instance}}): all counted
 * (HLEN), at most {@link #MAX_ENTRIES} examined (their {@code sent_at}, one script call per page). An
 * in-flight command is due by definition; stuck when it was sent longer than the reply timeout
 * plus the margin ago (its instance should have failed or retried it by then). The stuck devices
 * that waited longest are named ({@link StuckDevices}).
 */
final class InFlightCommands {

    static final String QUEUE = "inflight-commands";
    static final int MAX_ENTRIES = 10_000;
    static final int PAGE = 500;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final CommandKeys commandKeys;
    private final QueueStatusRules rules;
    private final Duration stuckAfter;
    private final Duration timeout;
    private Set<String> previous;
    private long previousAt;

    /** {@code replyTimeout}: commands.reply-timeout; with the margin, how long a command may be in flight. */
    InFlightCommands(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, QueueHealthSettings settings,
                     QueueStatusRules rules, Duration replyTimeout, Duration timeout) {
        this.redis = redis;
        this.commandKeys = new CommandKeys(keys);
        this.rules = rules;
        this.stuckAfter = replyTimeout.plus(settings.inFlightMargin());
        this.timeout = timeout;
    }

    QueueHealth read(long now) {
        long stuckBefore = now - stuckAfter.toMillis();
        List<String> instances = new ArrayList<>(await(redis.smembers(commandKeys.commandsInFlightInstances())));
        List<RedisFuture<Long>> lengths = new ArrayList<>();
        for (String instance : instances) {
            lengths.add(redis.hlen(commandKeys.commandsInFlight(instance)));
        }
        long size = 0;
        long budget = MAX_ENTRIES;
        Set<String> examinedInstances = new HashSet<>();
        List<RedisFuture<Map<String, String>>> entries = new ArrayList<>();
        for (int i = 0; i < instances.size(); i++) {
            long length = await(lengths.get(i));
            size += length;
            if (length > 0 && length <= budget) {
                budget -= length;
                examinedInstances.add(instances.get(i));
                entries.add(redis.hgetall(commandKeys.commandsInFlight(instances.get(i))));
            } else {
                entries.add(null);
            }
        }
        Set<String> seen = new HashSet<>();
        List<String> ids = new ArrayList<>();
        List<String> imeis = new ArrayList<>();
        for (int i = 0; i < instances.size(); i++) {
            if (entries.get(i) == null) {
                continue;
            }
            for (Map.Entry<String, String> e : await(entries.get(i)).entrySet()) {
                seen.add(instances.get(i) + ' ' + e.getKey() + ' ' + e.getValue());
                // In-flight entries are "id:attempt".
                String entry = e.getValue();
                ids.add(entry.contains(":") ? entry.substring(0, entry.indexOf(':')) : entry);
                imeis.add(e.getKey());
            }
        }
        long stuck = 0;
        long oldestAge = 0;
        long ageSum = 0;
        StuckDevices stuckDevices = new StuckDevices();
        List<CompletionStage<List<Object>>> pages = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += PAGE) {
            // The hashes it reads are its keys: on a cluster the call goes to their node (the namespace's slot).
            String[] hashes = ids.subList(from, Math.min(ids.size(), from + PAGE)).stream().map(commandKeys::command)
                    .toArray(String[]::new);
            pages.add(HealthScripts.READ_SENT_AT.call(redis, ScriptOutputType.MULTI, hashes));
        }
        int index = 0;
        for (CompletionStage<List<Object>> page : pages) {
            for (Object at : await(page)) {
                int entry = index++;
                long sent = parse(String.valueOf(at), now);
                long age = Math.max(0, now - sent);
                oldestAge = Math.max(oldestAge, age);
                ageSum += age;
                if (sent < stuckBefore) {
                    stuck++;
                    stuckDevices.add(imeis.get(entry), ids.get(entry), age);
                }
            }
        }
        double rate = 0;
        if (previous != null) {
            Set<String> comparable = new HashSet<>();
            for (String entry : previous) {
                if (examinedInstances.contains(entry.substring(0, entry.indexOf(' ')))) {
                    comparable.add(entry);
                }
            }
            rate = Departures.perMinute(Departures.inFlightLeft(comparable, seen), now - previousAt);
        }
        previous = seen;
        previousAt = now;
        QueueStatusRules.Verdict verdict = rules.commands(stuck, size);
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("due", size);
        detail.put("entries_examined", (long) ids.size());
        detail.put("stuck_devices", stuckDevices.list());
        return new QueueHealth(QUEUE, size, oldestAge, ids.isEmpty() ? 0 : ageSum / ids.size(), rate, stuck,
                verdict.status(), verdict.reason(), detail);
    }

    private static long parse(String value, long now) {
        if (value.isEmpty()) {
            return now; // finished since HGETALL, or no timestamp: not stuck
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return now;
        }
    }

    private <T> T await(CompletionStage<T> stage) {
        return Blocking.await(stage, timeout);
    }
}
