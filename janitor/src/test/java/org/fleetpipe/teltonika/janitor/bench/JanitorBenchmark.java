package org.fleetpipe.teltonika.janitor.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.janitor.JanitorMetrics;
import org.fleetpipe.teltonika.janitor.JanitorSettings;
import org.fleetpipe.teltonika.janitor.RegistryJanitor;
import org.fleetpipe.teltonika.janitor.SweepResult;
import org.fleetpipe.teltonika.janitor.InstanceLeftovers;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.redislauncher.LocalRedisServer;

/**
 * Not a test: fills connections:registry with ENTRIES entries over INSTANCES instances, half of
 * them dead, runs one janitor pass, and prints the pass time, evictions per second and the
 * slowest single Redis command of the pass (SLOWLOG). Run with bench/janitor-benchmark.sh.
 */
public final class JanitorBenchmark {

    public static void main(String[] args) throws Exception {
        int entries = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int instances = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int scanCount = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        try (LocalRedisServer server = LocalRedisServer.builder().build().start()) {
            RedisClient client = RedisClient.create(server.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> sync = connection.sync();
                RedisAsyncCommands<String, String> async = connection.async();
                RedisKeys keys = new RedisKeys("");
                fill(async, keys, entries, instances);
                for (int i = 0; i < instances; i += 2) {
                    sync.hset(keys.heartbeat("i-" + i), "host", "bench");
                }
                System.out.printf("redis %s, %d entries over %d instances (%d dead), HSCAN COUNT %d%n",
                        sync.info("server").lines().filter(l -> l.startsWith("redis_version")).findFirst().orElse("?"),
                        sync.hlen(keys.registry()), instances, instances / 2, scanCount);
                // Logging every command (inner script commands included, in Redis 6.2) would slow the
                // pass itself; 500 us catches everything near the 5 ms target.
                sync.configSet("slowlog-log-slower-than", "500");
                sync.configSet("slowlog-max-len", "1000000");
                sync.slowlogReset();

                RegistryJanitor janitor = new RegistryJanitor(async, keys,
                        new JanitorSettings(Duration.ofSeconds(60), 0, false, scanCount),
                        new JanitorMetrics(new SimpleMeterRegistry()), Duration.ofSeconds(30),
                        InstanceLeftovers.NONE);
                long start = System.nanoTime();
                SweepResult result = janitor.sweepOnce();
                double seconds = (System.nanoTime() - start) / 1e9;

                List<Object> slowlog = sync.slowlogGet(1_000_000);
                long maxMicros = 0;
                String slowest = "";
                Map<String, Integer> over = new HashMap<>();
                for (Object entry : slowlog) {
                    List<?> e = (List<?>) entry;
                    long micros = (Long) e.get(2);
                    List<?> cmd = (List<?>) e.get(3);
                    over.merge(String.valueOf(cmd.get(0)), 1, Integer::sum);
                    if (micros > maxMicros) {
                        maxMicros = micros;
                        slowest = cmd.subList(0, Math.min(3, cmd.size())).toString();
                    }
                }
                System.out.printf("commands over 500 us by name: %s%n", over);
                System.out.printf("pass: %.2f s, scanned %d, dead instances %d, evicted %d (%.0f evictions/s), "
                                + "errors %d%n", seconds, result.scanned(), result.deadInstances(), result.evicted(),
                        result.evicted() / seconds, result.errors());
                System.out.printf("slowest single Redis command during the pass: %d us %s (%d commands over 500 us)%n",
                        maxMicros, slowest, slowlog.size());
                System.out.printf("left in the registry: %d%n", sync.hlen(keys.registry()));
            } finally {
                client.shutdown(0, 2, TimeUnit.SECONDS);
            }
        }
    }

    private static void fill(RedisAsyncCommands<String, String> async, RedisKeys keys, int entries, int instances)
            throws Exception {
        List<RedisFuture<Long>> pending = new ArrayList<>();
        Map<String, String> batch = new HashMap<>();
        for (int i = 0; i < entries; i++) {
            batch.put(String.format("%015d", 350000000000000L + i), "i-" + (i % instances));
            if (batch.size() == 1000) {
                pending.add(async.hset(keys.registry(), batch));
                batch = new HashMap<>();
            }
        }
        if (!batch.isEmpty()) {
            pending.add(async.hset(keys.registry(), batch));
        }
        for (RedisFuture<Long> f : pending) {
            f.get(60, TimeUnit.SECONDS);
        }
    }
}
