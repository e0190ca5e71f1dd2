package org.fleetpipe.teltonika.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Devices hopping between instances: several instances, each on its own thread and connection like separate
 * processes, claim and release the same IMEIs at once. The oracle uses nothing but what the scripts answered:
 * every claim returns the entry it replaced, so the claims of one IMEI form chains; a chain ends at a claim nobody
 * took over (a tail), and only a tail may release successfully. At the end exactly the tail that was not released
 * may own the entry, and if every tail was released the entry must be gone.
 */
@WithRedis
class ConnectionRegistryRaceIT {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionRegistryRaceIT.class);
    private static final int INSTANCES = 4;
    private static final List<Imei> IMEIS = List.of(new Imei("356307042441013"), new Imei("356307042441021"),
            new Imei("356307042441039"));
    private static final int TRIALS = 2_000;
    // The run stops early rather than outgrow the suite's time budget on a slow machine.
    private static final Duration BUDGET = Duration.ofSeconds(12);
    private static final int MIN_TRIALS = 200;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    private enum Release { AT_ONCE, AFTER_ALL_CLAIMS, NEVER }

    private record Outcome(String id, String previousOwner, Boolean released) {
    }

    private final RedisFixture redis;
    private final RedisKeys keys = new RedisKeys("");
    private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
    private ExecutorService threads;

    ConnectionRegistryRaceIT(RedisFixture redis) {
        this.redis = redis;
    }

    @BeforeEach
    void startThreads() {
        threads = Executors.newFixedThreadPool(INSTANCES);
    }

    @AfterEach
    void stopEverything() throws InterruptedException {
        threads.shutdownNow();
        threads.awaitTermination(10, TimeUnit.SECONDS);
        connections.forEach(StatefulRedisConnection::close);
    }

    @Test
    void claimAndReleaseIfOwner_whenInstancesRaceForTheSameImeis_thenEntryNamesTheLastClaimerUnlessItReleased()
            throws Exception {
        long seed = Long.getLong("race.seed", System.nanoTime());
        RedisCommands<String, String> sync = connect().sync();
        List<RedisConnectionRegistry> registries = new ArrayList<>();
        for (int i = 0; i < INSTANCES; i++) {
            registries.add(new RedisConnectionRegistry(connect().async(), keys,
                    new InstanceIdentity(idOf(i), "test-host", 0L, "test"), Duration.ofHours(1)));
        }
        CyclicBarrier start = new CyclicBarrier(INSTANCES);
        long deadline = System.nanoTime() + BUDGET.toNanos();
        // A machine busy with other builds gets more time for the minimum, never an endless loop.
        long hardDeadline = System.nanoTime() + 5 * BUDGET.toNanos();
        int trials = 0;
        int lostReleases = 0;
        int endedOwned = 0;
        int endedFree = 0;

        while (trials < TRIALS && (System.nanoTime() < deadline || trials < MIN_TRIALS)
                && System.nanoTime() < hardDeadline) {
            int trial = trials;
            sync.del(keys.registry());
            Map<Imei, Map<String, Outcome>> outcomes = new HashMap<>();
            IMEIS.forEach(imei -> outcomes.put(imei, new ConcurrentHashMap<>()));
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < INSTANCES; i++) {
                String id = idOf(i);
                RedisConnectionRegistry registry = registries.get(i);
                Random random = new Random(seed * 31 + trial * 131L + i);
                running.add(threads.submit(() -> {
                    play(id, registry, random, start, outcomes);
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(30, TimeUnit.SECONDS);
            }

            String context = "seed " + seed + " (rerun with -Drace.seed=" + seed + "), trial " + trial;
            Map<String, String> entries = sync.hgetall(keys.registry());
            for (Imei imei : IMEIS) {
                String owner = entries.get(imei.value());
                String lastClaimer = sync.hget(keys.deviceInfo(imei.value()), "instance");
                check(context + ", imei " + imei.value(), outcomes.get(imei), owner, lastClaimer);
                lostReleases += (int) outcomes.get(imei).values().stream()
                        .filter(o -> Boolean.FALSE.equals(o.released())).count();
                if (owner == null) {
                    endedFree++;
                } else {
                    endedOwned++;
                }
            }
            trials++;
        }

        LOG.info("{} trials in {} ms (seed {}): {} releases found another owner; IMEIs ended owned {}, free {}",
                trials, (System.nanoTime() - deadline + BUDGET.toNanos()) / 1_000_000, seed, lostReleases,
                endedOwned, endedFree);
        assertThat(trials).as("trials within %s", BUDGET.multipliedBy(5)).isGreaterThanOrEqualTo(MIN_TRIALS);
        // Without these the run proved nothing: every ending and a release that lost its race must have happened.
        assertThat(lostReleases).as("releases that found another owner").isPositive();
        assertThat(endedOwned).as("IMEIs still owned at the end of a trial").isPositive();
        assertThat(endedFree).as("IMEIs free at the end of a trial").isPositive();
    }

    // One instance's trial: a connection per IMEI, each released at once, after all claims, or never.
    private static void play(String id, RedisConnectionRegistry registry, Random random, CyclicBarrier start,
                             Map<Imei, Map<String, Outcome>> outcomes) throws Exception {
        List<Imei> order = new ArrayList<>(IMEIS);
        Collections.shuffle(order, random);
        Map<Imei, Release> plan = new HashMap<>();
        order.forEach(imei -> plan.put(imei, Release.values()[random.nextInt(Release.values().length)]));
        start.await(30, TimeUnit.SECONDS);
        List<Imei> later = new ArrayList<>();
        for (Imei imei : order) {
            String previous = join(registry.claim(imei, id + ":" + imei.value()));
            Boolean released = null;
            if (plan.get(imei) == Release.AT_ONCE) {
                released = join(registry.releaseIfOwner(imei));
            } else if (plan.get(imei) == Release.AFTER_ALL_CLAIMS) {
                later.add(imei);
            }
            outcomes.get(imei).put(id, new Outcome(id, previous, released));
        }
        Collections.shuffle(later, random);
        for (Imei imei : later) {
            boolean released = join(registry.releaseIfOwner(imei));
            outcomes.get(imei).computeIfPresent(id, (k, o) -> new Outcome(id, o.previousOwner(), released));
        }
    }

    private static void check(String context, Map<String, Outcome> claims, String owner, String lastClaimer) {
        Set<String> takenOver = new HashSet<>();
        for (Outcome o : claims.values()) {
            if (o.previousOwner() != null) {
                if (!claims.containsKey(o.previousOwner()) || o.previousOwner().equals(o.id())) {
                    fail("%s: %s's claim replaced %s, which never claimed in this trial", context, o.id(),
                            o.previousOwner());
                }
                if (!takenOver.add(o.previousOwner())) {
                    fail("%s: two claims both replaced %s: %s", context, o.previousOwner(), claims.values());
                }
            }
        }
        Set<String> stillOpen = new HashSet<>();
        for (Outcome o : claims.values()) {
            boolean tail = !takenOver.contains(o.id());
            if (o.released() != null && o.released() != tail) {
                fail("%s: %s's release answered %s although %s: %s", context, o.id(), o.released(),
                        tail ? "nobody took the device over from it" : "another instance took the device over",
                        claims.values());
            }
            if (tail && o.released() == null) {
                stillOpen.add(o.id());
            }
        }
        if (stillOpen.size() > 1) {
            fail("%s: several claims were never taken over nor released: %s in %s", context, stillOpen,
                    claims.values());
        }
        String expectedOwner = stillOpen.isEmpty() ? null : stillOpen.iterator().next();
        assertThat(owner).as("%s: entry (claims %s)", context, claims.values()).isEqualTo(expectedOwner);
        // device:info is written in the same script as the entry, so it names the last claim in Redis' own order.
        assertThat(lastClaimer).as("%s: last claimer from device:info", context).isNotNull();
        boolean lastClaimReleased = Boolean.TRUE.equals(claims.get(lastClaimer).released());
        assertThat(owner).as("%s: entry vs. last claimer %s (claims %s)", context, lastClaimer, claims.values())
                .isEqualTo(lastClaimReleased ? null : lastClaimer);
    }

    private StatefulRedisConnection<String, String> connect() {
        StatefulRedisConnection<String, String> connection = redis.client().connect();
        connections.add(connection);
        return connection;
    }

    private static String idOf(int instance) {
        return "inst-" + instance;
    }

    private static <T> T join(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
}
