package org.fleetpipe.teltonika.janitor;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/**
 * Janitors racing each other, a heartbeat coming back, and devices re-registering on a live
 * instance, all at once, against real Redis. In every trial: no live entry is evicted, every dead
 * entry is, and the janitors' counts add up to exactly the fields that disappeared.
 */
@WithRedis
class JanitorRaceIT {

    private static final int TRIALS = 3_000;
    private static final int DEVICES = 8;
    private static final String LIVE = "live-1";
    private static final String DEAD = "dead-2";
    private static final String FLAKY = "flaky-3";

    @Test
    void concurrentJanitors_heartbeatsComingBack_andReRegistrations_neverEvictALiveEntry(RedisFixture fixture)
            throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            connections.add(fixture.client().connect());
        }
        RedisCommands<String, String> setup = connections.get(0).sync();
        RedisKeys keys = new RedisKeys("");
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        JanitorMetrics metrics = new JanitorMetrics(meters);
        JanitorSettings settings = new JanitorSettings(Duration.ofSeconds(60), 0, false, 3);
        RegistryJanitor first = new RegistryJanitor(connections.get(1).async(), keys, settings, metrics,
                Duration.ofSeconds(10), InstanceLeftovers.NONE);
        RegistryJanitor second = new RegistryJanitor(connections.get(2).async(), keys, settings, metrics,
                Duration.ofSeconds(10), InstanceLeftovers.NONE);
        RedisCommands<String, String> actor = connections.get(3).sync();
        long evictedTotal = 0;
        try {
            for (int trial = 0; trial < TRIALS; trial++) {
                String context = "seed " + seed + ", trial " + trial;
                setup.del(keys.registry(), keys.heartbeat(LIVE), keys.heartbeat(DEAD), keys.heartbeat(FLAKY));
                setup.hset(keys.heartbeat(LIVE), "host", "h");
                String[] owners = {LIVE, DEAD, FLAKY};
                Map<String, String> initial = new HashMap<>();
                for (int d = 0; d < DEVICES; d++) {
                    initial.put(imei(d), owners[random.nextInt(owners.length)]);
                }
                setup.hset(keys.registry(), initial);
                List<String> moved = new ArrayList<>();
                for (int d = 0; d < DEVICES; d++) {
                    if (random.nextInt(4) == 0) {
                        moved.add(imei(d));
                    }
                }
                boolean flakyReturns = random.nextBoolean();

                CountDownLatch go = new CountDownLatch(1);
                List<Callable<Long>> work = List.of(
                        () -> gate(go, first::sweepOnce).evicted(),
                        () -> gate(go, second::sweepOnce).evicted(),
                        () -> gate(go, () -> {
                            long created = 0;
                            for (String imei : moved) {
                                // A device logging in on the live instance: the claim is a plain HSET.
                                created += actor.hset(keys.registry(), imei, LIVE) ? 1 : 0;
                            }
                            if (flakyReturns) {
                                actor.hset(keys.heartbeat(FLAKY), "host", "h");
                            }
                            return created;
                        }));
                List<Future<Long>> futures = new ArrayList<>();
                for (Callable<Long> w : work) {
                    futures.add(pool.submit(w));
                }
                go.countDown();
                long evicted = futures.get(0).get(30, TimeUnit.SECONDS) + futures.get(1).get(30, TimeUnit.SECONDS);
                long created = futures.get(2).get(30, TimeUnit.SECONDS);
                evictedTotal += evicted;

                Map<String, String> last = setup.hgetall(keys.registry());
                Set<String> mustBeLive = new HashSet<>(moved);
                initial.forEach((imei, owner) -> {
                    if (owner.equals(LIVE)) {
                        mustBeLive.add(imei);
                    }
                });
                for (String imei : mustBeLive) {
                    assertThat(last.get(imei)).as("live entry %s kept (%s)", imei, context).isEqualTo(LIVE);
                }
                assertThat(last.values()).as("no entry of the dead instance is left (%s)", context).doesNotContain(DEAD);
                assertThat(evicted).as("evictions counted exactly (%s)", context)
                        .isEqualTo(initial.size() + created - last.size());
                if (!flakyReturns) {
                    assertThat(last.values()).as("the flaky instance stayed dead (%s)", context)
                            .doesNotContain(FLAKY);
                }
            }
        } finally {
            pool.shutdownNow();
            connections.forEach(StatefulRedisConnection::close);
        }
        double metricTotal = meters.find("teltonika.registry.janitor.evicted").counters().stream()
                .mapToDouble(c -> c.count()).sum();
        assertThat(metricTotal).isEqualTo((double) evictedTotal);
    }

    private static <T> T gate(CountDownLatch go, Callable<T> work) throws Exception {
        go.await();
        return work.call();
    }

    private static String imei(int i) {
        return String.format("35209308%07d", i);
    }
}
