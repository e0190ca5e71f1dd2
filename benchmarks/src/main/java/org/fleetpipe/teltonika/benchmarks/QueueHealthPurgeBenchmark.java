package org.fleetpipe.teltonika.benchmarks;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.redislauncher.LocalRedisServer;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandExpiry;
import org.fleetpipe.teltonika.server.command.CommandKeys;
import org.fleetpipe.teltonika.server.command.CommandSettings;
import org.fleetpipe.teltonika.server.command.RedisCommandStore;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.health.QueueHealthMonitor;
import org.fleetpipe.teltonika.server.health.StreamHealth;
import org.fleetpipe.teltonika.server.ingest.RedisFrameDeadLetters;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.ops.OpsSettings;
import org.fleetpipe.teltonika.server.ops.PurgeReport;
import org.fleetpipe.teltonika.server.ops.Purger;
import org.fleetpipe.teltonika.server.stream.StreamSnapshot;
import org.fleetpipe.teltonika.server.stream.TelemetryBackpressure;

/**
 * The Redis cost of one queue-health pass and one purge pass (dry run and live) at a fleet's scale:
 * fills a Redis with devices in the registry, each with queued commands (some in flight, some held
 * by a dead instance), a few orphaned hashes and full dead-letter sets, then runs the real
 * {@link QueueHealthMonitor#compute()} and {@link Purger#purge(boolean)} passes with reference.conf's
 * settings and prints, per pass, the wall time and what Redis itself counted: commands (INFO
 * commandstats, commands inside scripts included), CPU (INFO cpu, user + sys) and the slowest
 * single command (SLOWLOG, which in Redis 6.2 logs a script's inner commands too).
 *
 * <p>Usage: {@code bench/queue-health-benchmark.sh [devices=10000] [passes=5]}; {@code REDIS_URL}
 * names a Redis to fill (it is flushed first), else an embedded one is started.
 */
public final class QueueHealthPurgeBenchmark {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final List<String> LIVE = List.of("bench-live-1", "bench-live-2", "bench-live-3", "bench-live-4");
    private static final String DEAD = "bench-dead-1";
    private static final int ORPHANS = 200;

    private final RedisCommands<String, String> stats;
    private final RedisKeys keys = new RedisKeys("");
    private final CommandKeys commandKeys = new CommandKeys(keys);
    private String slowestCommand = "";

    private QueueHealthPurgeBenchmark(RedisCommands<String, String> stats) {
        this.stats = stats;
    }

    public static void main(String[] args) throws Exception {
        int devices = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int passes = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        String url = System.getenv("REDIS_URL");
        LocalRedisServer embedded = null;
        if (url == null || url.isBlank()) {
            embedded = LocalRedisServer.builder().build().start();
            url = embedded.uri();
            System.out.println("redis: embedded " + embedded.binary().description() + " at " + url);
        } else {
            System.out.println("redis: " + url);
        }
        RedisClient client = RedisClient.create(url);
        try (StatefulRedisConnection<String, String> work = client.connect();
             StatefulRedisConnection<String, String> statsConnection = client.connect()) {
            new QueueHealthPurgeBenchmark(statsConnection.sync()).run(work, devices, passes);
        } finally {
            client.shutdown();
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    private void run(StatefulRedisConnection<String, String> work, int devices, int passes) {
        ServerSettings settings = SettingsLoader.load();
        OpsSettings ops = settings.ops();
        CommandSettings commandSettings = settings.commands();
        RedisAsyncCommands<String, String> async = work.async();
        stats.flushall();
        stats.configSet("slowlog-log-slower-than", "1000");
        stats.configSet("slowlog-max-len", "128");
        long filled = System.nanoTime();
        Fleet fleet = fill(async, commandSettings, devices, ops.deadLetterTtl());
        System.out.printf("filled in %d ms: %s%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - filled), fleet);
        System.out.printf("redis: %s, used_memory %s%n", info("server").get("redis_version"),
                info("memory").get("used_memory_human"));

        try (PeriodicJobs jobs = new PeriodicJobs("bench", 1)) {
            IngestionMetrics metrics = new IngestionMetrics(new SimpleMeterRegistry());
            QueueHealthMonitor health = new QueueHealthMonitor(async, keys, settings.queueHealth(),
                    commandSettings.replyTimeout(), () -> LIVE.get(0), TIMEOUT, new SimpleMeterRegistry(),
                    stream(settings), jobs);
            Purger purger = new Purger(async, keys, ops, new CommandExpiry(async, keys, commandSettings, metrics,
                    TIMEOUT), metrics, TIMEOUT, jobs);
            // Loads the scripts and warms the JIT; not counted.
            health.compute();
            purger.purge(true);

            Cost idle = idle(Duration.ofSeconds(2));
            System.out.printf("idle redis: %.2f ms CPU per second (its own timers), subtracted from nothing below%n",
                    idle.cpuMs / 2.0);
            List<Cost> health10k = measure("queue-health", passes, () -> describe(health.compute()));
            List<Cost> dry = measure("purge dry-run", passes, () -> describe(purger.purge(true)));
            List<Cost> live = measure("purge live", passes, () -> describe(purger.purge(false)));
            System.out.println();
            System.out.printf("median per pass (%d devices): wall ms | redis commands | script calls | redis CPU ms"
                    + " | slowest single command of all passes, ms%n",
                    devices);
            summary("queue-health", health10k);
            summary("purge dry-run", dry);
            summary("purge live (after the first)", live.subList(1, live.size()));
            System.out.printf("settings: QUEUE_HEALTH_INTERVAL=%s PURGE_INTERVAL=%s PURGE_ORPHAN_SCAN_PER_PASS=%d%n",
                    settings.queueHealth().interval(), ops.purgeInterval(), ops.orphanScanPerPass());
        }
    }

    /** The stream as a server without consumer groups sees it; the stream's own health asks Redis nothing. */
    private static StreamHealth stream(ServerSettings settings) {
        var retention = settings.telemetry().retention();
        return new StreamHealth(() -> StreamSnapshot.NONE, System::currentTimeMillis, retention,
                new TelemetryBackpressure((imei, packet, receivedAt, connection, loop) ->
                        CompletableFuture.completedFuture(packet.size()), retention, 10));
    }

    private record Fleet(int devices, long queued, long inFlight, long ofDeadInstance, int orphans,
                         long deadLetters) {
    }

    /**
     * Devices in the registry, a tenth held by a dead instance; 1 to 3 commands queued for each
     * through the real enqueue script; every fifth device's first command taken (in flight) by the
     * instance holding it; orphaned hashes; both dead-letter sets full, 30 % past DLQ_TTL.
     */
    private Fleet fill(RedisAsyncCommands<String, String> redis, CommandSettings settings, int devices, Duration ttl) {
        long now = System.currentTimeMillis();
        List<CompletionStage<?>> calls = new ArrayList<>();
        for (String instance : LIVE) {
            calls.add(redis.hset(keys.heartbeat(instance), Map.of("host", "bench", "started", Long.toString(now))));
            calls.add(redis.expire(keys.heartbeat(instance), 3600));
            calls.add(redis.zadd(keys.instanceIds(), now, instance));
        }
        calls.add(redis.zadd(keys.instanceIds(), now - 1, DEAD));
        Map<String, RedisCommandStore> stores = new HashMap<>();
        for (String instance : owners()) {
            stores.put(instance, new RedisCommandStore(redis, keys, constant(instance), settings));
        }
        long queued = 0;
        for (int d = 0; d < devices; d++) {
            String owner = owner(d);
            Imei imei = new Imei(imei(d));
            calls.add(redis.hset(keys.registry(), imei.value(), owner));
            for (int c = 0; c <= d % 3; c++) {
                calls.add(stores.get(owner).enqueue("bench-" + d + "-" + c, imei, 12, "getinfo", "",
                        now + 3_600_000, 3));
                queued++;
            }
            awaitMany(calls);
        }
        awaitAll(calls);
        long inFlight = 0;
        long ofDead = 0;
        for (int d = 4; d < devices; d += 5) {
            calls.add(stores.get(owner(d)).take(new Imei(imei(d))));
            inFlight++;
            ofDead += owner(d).equals(DEAD) ? 1 : 0;
            awaitMany(calls);
        }
        awaitAll(calls);
        for (int i = 0; i < ORPHANS; i++) {
            calls.add(redis.hset(commandKeys.command("bench-orphan-" + i), Map.of("id", "bench-orphan-" + i, "imei",
                    imei(i),
                    "codec", "12", "command", "getinfo", "status", "queued", "history", "[]",
                    "expires_at", Long.toString(now + 3_600_000))));
        }
        long letters = 0;
        int kept = Math.min(settings.deadLetterMaxEntries(), 10_000);
        for (String set : List.of(RedisFrameDeadLetters.key(keys), commandKeys.commandDeadLetters())) {
            List<ScoredValue<String>> page = new ArrayList<>();
            for (int i = 0; i < kept; i++) {
                long at = i < kept * 3 / 10 ? now - ttl.toMillis() - 60_000 - i : now - i;
                page.add(ScoredValue.just(at, "{\"id\":\"letter-" + i + "\",\"reason\":\"timeout\",\"imei\":\""
                        + imei(i) + "\",\"command\":\"getinfo\",\"history\":\"[]\"}"));
                if (page.size() == 500) {
                    calls.add(redis.zadd(set, page.toArray(ScoredValue[]::new)));
                    page.clear();
                }
            }
            if (!page.isEmpty()) {
                calls.add(redis.zadd(set, page.toArray(ScoredValue[]::new)));
            }
            letters += kept;
        }
        awaitAll(calls);
        return new Fleet(devices, queued, inFlight, ofDead, ORPHANS, letters);
    }

    private static List<String> owners() {
        List<String> all = new ArrayList<>(LIVE);
        all.add(DEAD);
        return all;
    }

    /** A tenth of the devices are held by the dead instance, the rest spread over the live ones. */
    private static String owner(int device) {
        return device % 10 == 9 ? DEAD : LIVE.get(device % LIVE.size());
    }

    private static String imei(int i) {
        return String.format("35%013d", i);
    }

    private static Supplier<String> constant(String value) {
        return () -> value;
    }

    /** Waits for the calls gathered so far once there are many, so the fill pipelines without flooding Redis. */
    private static void awaitMany(List<CompletionStage<?>> calls) {
        if (calls.size() >= 1000) {
            awaitAll(calls);
        }
    }

    private static void awaitAll(List<CompletionStage<?>> calls) {
        for (CompletionStage<?> call : calls) {
            Blocking.await(call, TIMEOUT);
        }
        calls.clear();
    }

    private static String describe(QueueHealthMonitor.Report report) {
        StringBuilder out = new StringBuilder(report.status().label());
        report.queues().forEach(q -> out.append(' ').append(q.queue()).append("(size=").append(q.size())
                .append(",stuck=").append(q.stuck()).append(')'));
        return out.toString();
    }

    private static String describe(PurgeReport report) {
        return "orphaned=" + report.orphanedCommands() + " frame-letters=" + report.frameDeadLetters()
                + " command-letters=" + report.commandDeadLetters();
    }

    /** What Redis counted while one pass ran. */
    private record Cost(long wallMicros, long commands, long scriptCalls, double cpuMs, long slowestMicros) {
    }

    private List<Cost> measure(String name, int passes, Supplier<String> pass) {
        List<Cost> costs = new ArrayList<>();
        for (int i = 1; i <= passes; i++) {
            stats.slowlogReset();
            Map<String, Long> callsBefore = commandCalls();
            double cpuBefore = cpuMs();
            long start = System.nanoTime();
            String outcome = pass.get();
            long wall = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
            double cpu = cpuMs() - cpuBefore;
            Map<String, Long> calls = delta(callsBefore, commandCalls());
            long total = calls.values().stream().mapToLong(Long::longValue).sum();
            long scripts = calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
            slowestCommand = "-";
            long slowest = slowestMicros();
            costs.add(new Cost(wall, total, scripts, cpu, slowest));
            System.out.printf("%-14s #%d: %7.1f ms wall, %6d commands (%d script calls), %6.1f ms redis CPU, "
                    + "slowest command %.2f ms (%s); top %s; %s%n", name, i, wall / 1000.0, total, scripts, cpu,
                    slowest / 1000.0, slowestCommand, top(calls), outcome);
        }
        return costs;
    }

    private Cost idle(Duration period) {
        double before = cpuMs();
        long until = System.nanoTime() + period.toNanos();
        while (System.nanoTime() < until) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return new Cost(period.toNanos() / 1000, 0, 0, cpuMs() - before, 0);
    }

    private static void summary(String name, List<Cost> costs) {
        System.out.printf("  %-30s %8.1f | %7d | %6d | %7.1f | %6.2f%n", name,
                median(costs.stream().mapToDouble(c -> c.wallMicros / 1000.0).toArray()),
                (long) median(costs.stream().mapToDouble(c -> c.commands).toArray()),
                (long) median(costs.stream().mapToDouble(c -> c.scriptCalls).toArray()),
                median(costs.stream().mapToDouble(c -> c.cpuMs).toArray()),
                costs.stream().mapToLong(c -> c.slowestMicros).max().orElse(0) / 1000.0);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static String top(Map<String, Long> calls) {
        StringBuilder out = new StringBuilder();
        calls.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(5)
                .forEach(e -> out.append(out.length() == 0 ? "" : ",").append(e.getKey()).append('=')
                        .append(e.getValue()));
        return out.toString();
    }

    /** The longest command SLOWLOG kept since its reset (it keeps those over 1 ms, set below), in microseconds. */
    private long slowestMicros() {
        long slowest = 0;
        for (Object entry : stats.slowlogGet(128)) {
            if (entry instanceof List<?> fields && fields.size() > 3 && fields.get(2) instanceof Long micros
                    && micros > slowest) {
                slowest = micros;
                slowestCommand = fields.get(3) instanceof List<?> words && !words.isEmpty()
                        ? String.valueOf(words.get(0)).toLowerCase(Locale.ROOT) : "?";
            }
        }
        return slowest;
    }

    /** Redis's CPU time so far (user + sys, all its threads), in ms. */
    private double cpuMs() {
        Map<String, String> cpu = info("cpu");
        return (Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"))) * 1000;
    }

    /** Calls per command so far, INFO's own left out (commands inside scripts are counted by Redis too). */
    private Map<String, Long> commandCalls() {
        Map<String, Long> calls = new HashMap<>();
        info("commandstats").forEach((name, value) -> {
            String command = name.substring("cmdstat_".length());
            if (!command.equals("info")) {
                calls.put(command, Long.parseLong(value.replaceAll("^calls=(\\d+),.*", "$1")));
            }
        });
        return calls;
    }

    private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new LinkedHashMap<>();
        after.forEach((command, calls) -> {
            long d = calls - before.getOrDefault(command, 0L);
            if (d > 0) {
                delta.put(command, d);
            }
        });
        return delta;
    }

    private Map<String, String> info(String section) {
        Map<String, String> fields = new HashMap<>();
        for (String line : stats.info(section).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }
}
