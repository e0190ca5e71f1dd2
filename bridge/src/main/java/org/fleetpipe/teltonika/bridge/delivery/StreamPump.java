package org.fleetpipe.teltonika.bridge.delivery;

import java.time.Duration;
import java.util.List;
import org.fleetpipe.teltonika.bridge.ops.BridgeMetrics;
import org.fleetpipe.teltonika.bridge.stream.GroupReader;
import org.fleetpipe.teltonika.bridge.stream.StreamEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the group and feeds the lanes: first this consumer's own pending entries, then new ones,
 * and every {@code claimEvery} the entries a dead replica left. It reads only as fast as the lanes
 * take entries, so a slow sink stops the reading instead of filling the heap.
 */
public final class StreamPump implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(StreamPump.class);

    private final GroupReader reader;
    private final DeviceLanes lanes;
    private final int batchSize;
    /** One read fills every lane's next batch: the devices of a read spread over the lanes. */
    private final int readSize;
    private final Duration claimIdle;
    private final Duration claimEvery;
    private final Backoff backoff;
    private final BridgeMetrics metrics;
    private volatile boolean running = true;
    private volatile boolean reading;

    public StreamPump(GroupReader reader, DeviceLanes lanes, int batchSize, Duration claimIdle, Duration claimEvery,
                      Backoff backoff, BridgeMetrics metrics) {
        this.reader = reader;
        this.lanes = lanes;
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

    /** Whether the last read succeeded: readiness. */
    public boolean isReading() {
        return reading;
    }

    @Override
    public void run() {
        int failures = 0;
        boolean ownPendingDone = false;
        long nextClaimAt = System.nanoTime();
        while (running) {
            try {
                if (!ownPendingDone) {
                    List<StreamEntry> page = reader.ownPending(batchSize);
                    ownPendingDone = page.isEmpty();
                    if (!page.isEmpty()) {
                        LOG.info("resuming own pending entries={} from={}", page.size(), page.get(0).id());
                    }
                    submitAll(page);
                } else if (System.nanoTime() >= nextClaimAt) {
                    List<StreamEntry> claimed = reader.claimAbandoned(claimIdle, batchSize);
                    if (!claimed.isEmpty()) {
                        metrics.claimed(claimed.size());
                        LOG.info("claimed entries={} left by another consumer for over {}", claimed.size(), claimIdle);
                    }
                    submitAll(claimed);
                    if (claimed.size() < batchSize) {
                        nextClaimAt = System.nanoTime() + claimEvery.toNanos();
                    }
                } else {
                    submitAll(reader.next(readSize, Duration.ofSeconds(1)));
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

    private void submitAll(List<StreamEntry> entries) throws InterruptedException {
        for (StreamEntry entry : entries) {
            if (!running) {
                return;
            }
            lanes.submit(entry, () -> running);
        }
    }
}
