package org.fleetpipe.teltonika.registry;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * the listener comes back under a new id. Only the marker stops the instance. It runs on its own
 * thread, so its Redis calls may block there without ever blocking an event loop.
 */
public final class HeartbeatRenewer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HeartbeatRenewer.class);

    /** What happens when the heartbeat is lost. Called on the heartbeat thread. */
    public interface Listener {
        /** The operator's shutdown marker is set: stop like on SIGTERM and exit 0. */
        void remoteShutdown(String id);

        /** The key is gone or is not ours: come back under a new id. */
        void expired(String oldId, String why);
    }

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final InstanceIdentity identity;
    private final Duration ttl;
    private final Duration interval;
    private final Duration callTimeout;
    private final int maxKnownIds;
    private final IntSupplier deviceCount;
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

    public HeartbeatRenewer(RedisAsyncCommands<String, String> redis, RedisKeys keys, InstanceIdentity identity,
                            Duration ttl, Duration interval, Duration callTimeout, int maxKnownIds,
                            IntSupplier deviceCount) {
        this.redis = redis;
        this.keys = keys;
        this.identity = identity;
        this.ttl = ttl;
        this.interval = interval;
        this.callTimeout = callTimeout;
        this.maxKnownIds = maxKnownIds;
        this.deviceCount = deviceCount;
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

    /** Never a shutdown: the same absence follows a restore, a lagging replica or an eviction. */
    private void onMissing(long now) {
        if (now - lastRenewedAt >= ttl.toMillis()) {
            lose(false, "the heartbeat expired: Redis was unreachable for longer than the TTL (" + ttl + ")");
            return;
        }
        Long seq = await(redis.exists(keys.instanceSeq()));
        if (seq == null || seq == 0L) {
            lose(false, "Redis came back empty (instance:seq is gone too): its data was lost");
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
                listener.remoteShutdown(id);
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
     * Clean stop: deletes the heartbeat, the id from the known ids and the shutdown marker. Blocks
     * up to the call timeout.
     */
    public void retire() {
        stopped = true;
        thread.shutdownNow();
        try {
            await(RegistryScripts.RETIRE.call(redis, ScriptOutputType.INTEGER,
                    new String[] {keys.heartbeat(identity.id()), keys.instanceIds(),
                            keys.shutdownMarker(identity.id())}, identity.id()));
        } catch (RuntimeException e) {
            LOG.warn("could not delete the heartbeat of instance={}; it expires within {}: {}", identity.id(), ttl,
                    e.getMessage());
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
