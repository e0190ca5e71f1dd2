package org.fleetpipe.teltonika.registry;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.fleetpipe.teltonika.redis.BackgroundThreads;
import org.fleetpipe.teltonika.redis.Blocking;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@code instance:heartbeat:{id}} alive, and reads the operator's shutdown marker
 * ({@code instance:shutdown:{id}}) at each renewal. A heartbeat that is lost (expired while Redis
 * was unreachable, deleted, rewritten by someone else, or gone with a restore of an older snapshot,
 * a failover to a lagging replica or an eviction) means the cluster may have moved on without us:
 * the listener comes back under a new id. The marker stops the instance; so does a heartbeat deleted
 * while Redis answers, when {@link HeartbeatDeleteMeans#SHUTDOWN} says so. It runs on its own
 * thread, so its Redis calls may block there without ever blocking an event loop.
 */
public final class HeartbeatRenewer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HeartbeatRenewer.class);

    /** What one clean stop removed, each 0 or 1: the heartbeat key, the id in {@code instance:ids}, the shutdown marker. */
    public record Retired(long heartbeat, long ids, long marker) {
    }

    /** What happens when the heartbeat is lost. Called on the heartbeat thread. */
    public interface Listener {
        /** The operator told this instance to stop ({@code why}: the marker, or the deleted heartbeat): stop like on SIGTERM and exit 0. */
        void remoteShutdown(String id, String why);

        /** The key is gone or is not ours: come back under a new id. */
        void expired(String oldId, String why);
    }

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final InstanceIdentity identity;
    private final Duration ttl;
    private final Duration interval;
    private final Duration callTimeout;
    private final int maxKnownIds;
    private final IntSupplier deviceCount;
    private final HeartbeatDeleteMeans deleteMeans;
    private final ScheduledExecutorService thread;
    private Listener listener;
    private volatile long lastRenewedAt;
    private volatile long lastFailureAt;
    private String lastWritten;
    /** Values of renewals that got no answer in time: Redis may still have run them. */
    private final java.util.ArrayDeque<String> unanswered = new java.util.ArrayDeque<>();
    private volatile boolean stopped;
    private final java.util.concurrent.atomic.AtomicLong renewals = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong failures = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean lost;

    public HeartbeatRenewer(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, InstanceIdentity identity,
                            Duration ttl, Duration interval, Duration callTimeout, int maxKnownIds,
                            IntSupplier deviceCount) {
        this(redis, keys, identity, ttl, interval, callTimeout, maxKnownIds, deviceCount, HeartbeatDeleteMeans.EXPIRY);
    }

    /** {@code deleteMeans}: what a heartbeat key deleted while Redis answers means (an expiry, or an order to stop). */
    public HeartbeatRenewer(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, InstanceIdentity identity,
                            Duration ttl, Duration interval, Duration callTimeout, int maxKnownIds,
                            IntSupplier deviceCount, HeartbeatDeleteMeans deleteMeans) {
        this.redis = redis;
        this.keys = keys;
        this.identity = identity;
        this.ttl = ttl;
        this.interval = interval;
        this.callTimeout = callTimeout;
        this.maxKnownIds = maxKnownIds;
        this.deviceCount = deviceCount;
        this.deleteMeans = deleteMeans;
        this.thread = BackgroundThreads.single("heartbeat");
    }

    /** Writes the heartbeat of the current id; refuses if the key exists. Blocks (start-up only). */
    public void create() {
        long now = System.currentTimeMillis();
        String renewed = Long.toString(now);
        List<String> args = new ArrayList<>(List.of(Long.toString(ttl.toMillis()), identity.id(), Long.toString(now),
                Integer.toString(maxKnownIds), keys.heartbeat("")));
        fields(renewed).forEach((k, v) -> {
            args.add(k);
            args.add(v);
        });
        Long created = await(RegistryScripts.HEARTBEAT_CREATE.call(redis, ScriptOutputType.INTEGER,
                new String[] {keys.heartbeat(identity.id()), keys.instanceIds(), keys.shutdownMarker(identity.id())},
                args.toArray(String[]::new)));
        if (created == null || created != 1L) {
            throw new InstanceConflictException("the heartbeat key " + keys.heartbeat(identity.id()) + " already "
                    + "exists for a brand-new instance id: another program writes in this Redis keyspace. Use another "
                    + "REDIS_NAMESPACE or database, or find the other writer; refusing to start");
        }
        lastWritten = renewed;
        unanswered.clear();
        lastRenewedAt = now;
        lost = false;
    }

    /** Starts renewing every interval; {@code listener} hears about a lost heartbeat. */
    public void start(Listener listener) {
        this.listener = listener;
        thread.scheduleWithFixedDelay(this::tick, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Renews at once (e.g. after the listeners bound their ports); failures are logged, not thrown. */
    public void renewSoon() {
        thread.execute(this::tick);
    }

    private void tick() {
        try {
            renewOnce();
        } catch (Throwable t) {
            // A scheduled task that throws is never run again: the heartbeat must not die of a bug.
            LOG.error("heartbeat tick failed for instance={}", identity.id(), t);
        }
    }

    private void renewOnce() {
        if (stopped || lost || listener == null) {
            return;
        }
        long now = System.currentTimeMillis();
        String outcome;
        try {
            outcome = renew(now);
        } catch (RuntimeException e) {
            failures.incrementAndGet();
            rememberUnanswered(Long.toString(now));
            if (lastFailureAt <= lastRenewedAt) {
                LOG.warn("heartbeat renewal failed for instance={}: {} (the key expires {} after the last renewal)",
                        identity.id(), e.getMessage(), ttl);
            }
            lastFailureAt = now;
            return;
        }
        switch (outcome) {
            case "ok" -> {
                if (lastFailureAt > lastRenewedAt) {
                    LOG.info("heartbeat renewed again for instance={}", identity.id());
                }
                lastWritten = Long.toString(now);
                unanswered.clear();
                lastRenewedAt = now;
                renewals.incrementAndGet();
            }
            case "shutdown" -> lose(true, "the shutdown marker " + keys.shutdownMarker(identity.id())
                    + " is set: remote shutdown");
            // Judged by when the answer came: a renewal sent before the TTL ran out may be answered after.
            case "missing" -> onMissing(System.currentTimeMillis());
            default -> lose(false, "the heartbeat key holds a value this instance did not write");
        }
    }

    private String renew(long now) {
        List<String> args = new ArrayList<>(List.of(Long.toString(now), Long.toString(ttl.toMillis()),
                Integer.toString(1 + unanswered.size()), lastWritten));
        args.addAll(unanswered);
        fields(null).forEach((k, v) -> {
            args.add(k);
            args.add(v);
        });
        String outcome = await(RegistryScripts.HEARTBEAT_RENEW.call(redis, ScriptOutputType.VALUE,
                new String[] {keys.heartbeat(identity.id()), keys.shutdownMarker(identity.id())},
                args.toArray(String[]::new)));
        return outcome == null ? "missing" : outcome;
    }

    private void rememberUnanswered(String value) {
        if (unanswered.size() >= 32) {
            unanswered.removeFirst();
        }
        unanswered.addLast(value);
    }

    /**
     * A shutdown only when {@link HeartbeatDeleteMeans#SHUTDOWN} says a deleted key is one, and only
     * for a key gone while Redis answered and kept the rest of its data: a key that expired while
     * Redis was out of reach, or a Redis that came back empty, was deleted by nobody. In the default
     * mode never: the same absence follows a restore, a lagging replica or an eviction.
     */
    private void onMissing(long now) {
        if (now - lastRenewedAt >= ttl.toMillis()) {
            lose(false, "the heartbeat expired: Redis was unreachable for longer than the TTL (" + ttl + ")");
            return;
        }
        Long seq = await(redis.exists(keys.instanceSeq()));
        if (seq == null || seq == 0L) {
            lose(false, "Redis came back empty (instance:seq is gone too): its data was lost");
        } else if (deleteMeans == HeartbeatDeleteMeans.SHUTDOWN) {
            lose(true, "the heartbeat key was deleted and heartbeat-delete-means=shutdown: remote shutdown");
        } else {
            lose(false, "the heartbeat key is gone although Redis answered (a restore of an older snapshot, a "
                    + "failover to a lagging replica, an eviction, or a manual DEL)");
        }
    }

    private void lose(boolean remoteShutdown, String why) {
        lost = true;
        String id = identity.id();
        LOG.warn(remoteShutdown ? "stop requested for instance={}: {}" : "heartbeat lost for instance={}: {}", id, why);
        try {
            if (remoteShutdown) {
                listener.remoteShutdown(id, why);
            } else {
                listener.expired(id, why);
            }
        } catch (RuntimeException e) {
            LOG.error("handling the lost heartbeat of instance={} failed", id, e);
        }
    }

    /**
     * Comes back under {@code newId}: writes its heartbeat and resumes renewing. Called by the
     * recovery after an expiry, on the heartbeat thread.
     */
    public void adopt(String newId) {
        String oldId = identity.id();
        identity.changeId(newId);
        try {
            create();
        } catch (RuntimeException e) {
            identity.changeId(oldId);
            throw e;
        }
    }

    /** Runs {@code task} on the heartbeat thread (the recovery, which may block on Redis). */
    public void execute(Runnable task) {
        thread.execute(task);
    }

    /** True while the last renewal is recent enough for readiness: within two intervals. */
    public boolean isFresh() {
        return !lost && !stopped && System.currentTimeMillis() - lastRenewedAt <= 2 * interval.toMillis();
    }

    /** Successful renewals so far, for a metric. */
    public long renewals() {
        return renewals.get();
    }

    /** Renewals that failed (Redis error or timeout), for a metric. */
    public long failures() {
        return failures.get();
    }

    public long lastRenewedAt() {
        return lastRenewedAt;
    }

    /**
     * Clean stop: deletes the heartbeat, the id from the known ids and the shutdown marker, and logs
     * what it removed ({@code retired: ... heartbeat=1 ids=1 marker=0}). Blocks up to the call
     * timeout. Empty when the call failed (then the heartbeat expires on its own).
     */
    public Optional<Retired> retire() {
        stopped = true;
        thread.shutdownNow();
        String id = identity.id();
        try {
            List<Long> removed = await(RegistryScripts.RETIRE.call(redis, ScriptOutputType.MULTI,
                    new String[] {keys.heartbeat(id), keys.instanceIds(), keys.shutdownMarker(id)}, id));
            Retired retired = new Retired(removed.get(0), removed.get(1), removed.get(2));
            // heartbeat=0: it had expired or was deleted; marker=1: an operator's stop order was cleared.
            LOG.info("retired: instance={} heartbeat={} ids={} marker={}", id, retired.heartbeat(), retired.ids(),
                    retired.marker());
            return Optional.of(retired);
        } catch (RuntimeException e) {
            LOG.warn("could not delete the heartbeat of instance={}; it expires within {}: {}", id, ttl,
                    e.getMessage());
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        stopped = true;
        thread.shutdownNow();
    }

    private Map<String, String> fields(String renewed) {
        Map<String, String> fields = identity.heartbeatFields();
        if (renewed != null) {
            fields.put("renewed", renewed);
        }
        fields.put("devices", Integer.toString(deviceCount.getAsInt()));
        return fields;
    }

    private <T> T await(java.util.concurrent.CompletionStage<T> stage) {
        return Blocking.await(stage, callTimeout);
    }
}
