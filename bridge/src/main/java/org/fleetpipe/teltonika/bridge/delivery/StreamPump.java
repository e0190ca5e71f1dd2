package org.fleetpipe.teltonika.bridge.delivery;

import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.fleetpipe.teltonika.bridge.ops.BridgeMetrics;
import org.fleetpipe.teltonika.bridge.stream.EntryAcks;
import org.fleetpipe.teltonika.bridge.stream.GroupReader;
import org.fleetpipe.teltonika.bridge.stream.PartitionLeases;
import org.fleetpipe.teltonika.bridge.stream.StreamEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the group and feeds the lanes, on the streams of the partitions this replica holds leases
 * on: between two reads it moves the partitions on (PartitionHandover: a partition taken is taken
 * over first, one given up is handed back), then reads new entries of the partitions it reads, and
 * every {@code claimEvery} takes entries left on them longer than {@code claimIdle}. It reads only as
 * fast as the lanes take entries, so a slow sink stops the reading instead of filling the heap.
 */
public final class StreamPump implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(StreamPump.class);
    /** How long a replica that reads no partition (a standby) waits before looking again. */
    private static final long STANDBY_WAIT_MILLIS = 200;

    private final GroupReader reader;
    private final DeviceLanes lanes;
    private final HeldPartitions partitions;
    private final PartitionHandover handover;
    private final int batchSize;
    /** One read fills every lane's next batch: the devices of a read spread over the lanes. */
    private final int readSize;
    private final Duration claimIdle;
    private final Duration claimEvery;
    private final Backoff backoff;
    private final BridgeMetrics metrics;
    private volatile boolean running = true;
    private volatile boolean reading;

    public StreamPump(GroupReader reader, DeviceLanes lanes, HeldPartitions partitions, PartitionLeases leases,
                      HeldEntries inFlight, EntryAcks acks, int batchSize, Duration claimIdle, Duration claimEvery,
                      Backoff backoff, BridgeMetrics metrics) {
        this.reader = reader;
        this.lanes = lanes;
        this.partitions = partitions;
        // Handed back idle as long as claimIdle plus a second: replicas without leases (an older
        // version in a rollout) take them over at once too.
        this.handover = new PartitionHandover(partitions, leases, reader, lanes, inFlight, acks,
                claimIdle.plusSeconds(1), batchSize, metrics);
        this.batchSize = batchSize;
        this.readSize = batchSize * lanes.count();
        this.claimIdle = claimIdle;
        this.claimEvery = claimEvery;
        this.backoff = backoff;
        this.metrics = metrics;
    }

    public void stop() {
        running = false;
    }

    /** Whether the last pass succeeded: readiness. */
    public boolean isReading() {
        return reading;
    }

    @Override
    public void run() {
        int failures = 0;
        long nextClaimAt = System.nanoTime();
        while (running) {
            try {
                List<String> streams = handover.apply(entries -> submitAll(entries, partitions::deliverable),
                        () -> running);
                if (streams.isEmpty()) {
                    reading = true;
                    Thread.sleep(STANDBY_WAIT_MILLIS);
                    continue;
                }
                if (System.nanoTime() >= nextClaimAt) {
                    List<StreamEntry> claimed = reader.claimAbandoned(streams, claimIdle, batchSize);
                    if (!claimed.isEmpty()) {
                        metrics.claimed(claimed.size());
                        LOG.info("claimed entries={} left by another consumer for over {}", claimed.size(), claimIdle);
                    }
                    submitAll(claimed, partitions::reading);
                    if (claimed.size() < batchSize) {
                        nextClaimAt = System.nanoTime() + claimEvery.toNanos();
                    }
                } else {
                    submitAll(reader.next(streams, readSize, Duration.ofSeconds(1)), partitions::reading);
                }
                reading = true;
                failures = 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                reading = false;
                metrics.redisError();
                if (failures++ % 10 == 0) {
                    LOG.warn("reading the stream failed attempt={} error=\"{}\"", failures, e.getMessage());
                }
                try {
                    Thread.sleep(backoff.next(failures).toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * Queues entries whose stream {@code wanted} still says to: one read while a partition was
     * being given up or lost stays pending, handed back or claimed by the next holder.
     */
    private void submitAll(List<StreamEntry> entries, Predicate<String> wanted) throws InterruptedException {
        // Held from the moment they are read, not when a lane takes them: a full lane keeps the pump
        // waiting as long as the sink is away, and an entry left untouched that long would look
        // abandoned to the next claim and could go out twice (BridgeFaultIT saw it once).
        List<StreamEntry> mine = lanes.holdAll(entries.stream().filter(e -> wanted.test(e.stream())).toList());
        int queued = 0;
        try {
            while (running && queued < mine.size()) {
                StreamEntry entry = mine.get(queued);
                // Not queued (its partition went meanwhile): released by queue, pending in the group.
                lanes.queue(entry, () -> running && partitions.deliverable(entry.stream()));
                queued++;
            }
        } finally {
            lanes.release(mine.subList(queued, mine.size()));
        }
    }
}
