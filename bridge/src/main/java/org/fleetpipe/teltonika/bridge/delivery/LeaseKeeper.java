package org.fleetpipe.teltonika.bridge.delivery;

import java.time.Duration;
import org.fleetpipe.teltonika.bridge.ops.BridgeMetrics;
import org.fleetpipe.teltonika.bridge.stream.PartitionLeases;
import org.fleetpipe.teltonika.payload.TelemetryLayout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this replica's partition leases, every third of the ttl: says it is alive, renews what it
 * holds (a lease that is no longer its own, or not renewed in time, is lost), and balances: with M
 * live members its share is ceil(P / M); it takes free partitions up to the share and asks the pump
 * to give up those above it. The pump does the taking over and the giving up (StreamPump,
 * PartitionHandover), so reading and handing over never race.
 */
public final class LeaseKeeper {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);

    private final PartitionLeases leases;
    private final HeldPartitions held;
    private final TelemetryLayout layout;
    private final long ttlNanos;
    private final BridgeMetrics metrics;
    /** Where this replica starts looking for free partitions: replicas starting together spread out. */
    private final int firstLook;
    private volatile boolean paused;
    private volatile boolean healthy;
    private int failures;

    public LeaseKeeper(PartitionLeases leases, HeldPartitions held, TelemetryLayout layout, String consumerName,
                       BridgeMetrics metrics) {
        this.leases = leases;
        this.held = held;
        this.layout = layout;
        this.ttlNanos = leases.ttl().toNanos();
        this.metrics = metrics;
        this.firstLook = Math.floorMod(consumerName.hashCode(), layout.partitions());
    }

    /** How often {@link #round()} runs: a third of the ttl, so one missed renewal is survived. */
    public Duration every() {
        return Duration.ofNanos(ttlNanos / 3);
    }

    /** For tests: stops renewing and heartbeating, as a replica stalled by a long GC pause would. */
    public void pause(boolean pause) {
        paused = pause;
    }

    /** Whether the last round reached Redis: readiness. */
    public boolean isHealthy() {
        return healthy;
    }

    public void round() {
        if (paused) {
            return;
        }
        try {
            int live = Math.max(1, leases.heartbeat());
            int share = (layout.partitions() + live - 1) / live;
            renewAll();
            balance(share, live);
            healthy = true;
            failures = 0;
        } catch (RuntimeException e) {
            healthy = false;
            metrics.redisError();
            if (failures++ % 10 == 0) {
                LOG.warn("keeping the partition leases failed attempt={} error=\"{}\"", failures, e.getMessage());
            }
            // Unrenewed leases run out: the lanes stop at each one's deadline.
            long now = System.nanoTime();
            held.all().stream().filter(t -> !t.lost() && t.pastDeadline(now))
                    .forEach(t -> held.lose(t, "could not renew: " + e.getMessage()));
        }
        metrics.partitionsHeld(held.count());
    }

    private void renewAll() {
        for (Tenure tenure : held.all()) {
            if (tenure.lost()) {
                continue;
            }
            long sent = System.nanoTime();
            if (tenure.pastDeadline(sent)) {
                held.lose(tenure, "not renewed in time");
            } else if (leases.renew(tenure.partition)) {
                tenure.renewed(deadline(sent));
            } else {
                held.lose(tenure, "expired or held by another replica");
            }
        }
    }

    private void balance(int share, int live) {
        int keeping = 0;
        for (Tenure tenure : held.all()) {
            if (!tenure.lost() && !tenure.givingUp()) {
                keeping++;
            }
        }
        if (keeping > share) {
            // The highest partitions go: the pump stops reading them and hands them over.
            java.util.List<Tenure> highestFirst = held.all();
            java.util.Collections.reverse(highestFirst);
            for (Tenure tenure : highestFirst) {
                if (keeping <= share) {
                    break;
                }
                if (!tenure.lost() && !tenure.givingUp() && tenure.state() == Tenure.State.READING) {
                    tenure.giveUp();
                    keeping--;
                    LOG.info("lease giving up partition={} stream={} share={} live_members={}", tenure.partition,
                            tenure.stream, share, live);
                }
            }
            return;
        }
        for (int i = 0; i < layout.partitions() && keeping < share; i++) {
            int partition = (firstLook + i) % layout.partitions();
            if (held.has(partition)) {
                continue;
            }
            long sent = System.nanoTime();
            if (leases.take(partition)) {
                held.add(new Tenure(partition, layout.stream(partition), deadline(sent)));
                keeping++;
                LOG.info("lease taken partition={} stream={} share={} live_members={}", partition,
                        layout.stream(partition), share, live);
            }
        }
    }

    /** Deliveries stop a third of the ttl before the lease can expire in Redis. */
    private long deadline(long sentNanos) {
        return sentNanos + ttlNanos - ttlNanos / 3;
    }

    /**
     * At a clean stop, after the lanes finished and the entries were handed back: releases every
     * lease still held, so a standby takes over at its next round rather than after the ttl, and
     * leaves the member list.
     */
    public void releaseAll() {
        for (Tenure tenure : held.all()) {
            if (!tenure.lost()) {
                try {
                    leases.release(tenure.partition);
                    LOG.info("lease released partition={} stream={}: stopping", tenure.partition, tenure.stream);
                } catch (RuntimeException e) {
                    LOG.warn("could not release the lease partition={} (free after the ttl): {}", tenure.partition,
                            e.toString());
                }
            }
            held.remove(tenure);
        }
        try {
            leases.leave();
        } catch (RuntimeException e) {
            LOG.warn("could not leave the member list (gone after the ttl): {}", e.toString());
        }
        metrics.partitionsHeld(0);
    }
}
