package org.fleetpipe.teltonika.bridge.delivery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.fleetpipe.teltonika.bridge.ops.BridgeMetrics;
import org.fleetpipe.teltonika.bridge.stream.EntryAcks;
import org.fleetpipe.teltonika.bridge.stream.GroupReader;
import org.fleetpipe.teltonika.bridge.stream.PartitionLeases;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pump's side of the leases, run between two reads, so no read is in flight while a partition
 * changes hands: a partition taken is taken over (everything pending on its stream claimed and
 * queued, in id order, before its new entries are read); one to give up stops being read, its
 * queued entries are dropped, and once its last batch in flight is acknowledged its pending entries
 * are handed back and the lease released; a lost one is forgotten.
 */
final class PartitionHandover {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionHandover.class);

    private final HeldPartitions partitions;
    private final PartitionLeases leases;
    private final GroupReader reader;
    private final DeviceLanes lanes;
    private final HeldEntries inFlight;
    private final EntryAcks acks;
    private final Duration handBackIdle;
    private final int page;
    private final BridgeMetrics metrics;

    PartitionHandover(HeldPartitions partitions, PartitionLeases leases, GroupReader reader, DeviceLanes lanes,
                      HeldEntries inFlight, EntryAcks acks, Duration handBackIdle, int page, BridgeMetrics metrics) {
        this.partitions = partitions;
        this.leases = leases;
        this.reader = reader;
        this.lanes = lanes;
        this.inFlight = inFlight;
        this.acks = acks;
        this.handBackIdle = handBackIdle;
        this.page = page;
        this.metrics = metrics;
    }

    /**
     * Moves every partition on a step, then answers the streams to read now, in partition order.
     * Claimed entries are queued with {@code submit}, which waits while a lane is full.
     */
    List<String> apply(Submitter submit, BooleanSupplier running) throws InterruptedException {
        List<String> reading = new ArrayList<>();
        for (Tenure tenure : partitions.all()) {
            if (!running.getAsBoolean()) {
                break;
            }
            partitions.deliverable(tenure.stream);
            if (tenure.lost()) {
                // Dropped from the lanes when lost; the next holder claims what stayed pending.
                lanes.drop(tenure.stream);
                partitions.remove(tenure);
                continue;
            }
            switch (tenure.state()) {
                case TAKEN -> {
                    if (tenure.givingUp()) {
                        tenure.state(Tenure.State.DRAINING);
                    } else {
                        takeOver(tenure, submit, running);
                        if (!tenure.lost()) {
                            tenure.state(Tenure.State.READING);
                            reading.add(tenure.stream);
                        }
                    }
                }
                case READING -> {
                    if (tenure.givingUp()) {
                        tenure.state(Tenure.State.DRAINING);
                        lanes.drop(tenure.stream);
                        handBackWhenDone(tenure);
                    } else {
                        reading.add(tenure.stream);
                    }
                }
                case DRAINING -> handBackWhenDone(tenure);
            }
        }
        metrics.partitionsHeld(partitions.count());
        return reading;
    }

    /** Everything pending on the stream, the previous holder's and this consumer's own, in id order. */
    private void takeOver(Tenure tenure, Submitter submit, BooleanSupplier running) throws InterruptedException {
        long own = reader.ownPendingCount(tenure.stream);
        long claimed = 0;
        String cursor = "0-0";
        // Ends: each page moves the cursor on through the pending list, 0-0 after its last entry.
        while (running.getAsBoolean() && !tenure.lost()) {
            GroupReader.ClaimPage claim = reader.takeOver(tenure.stream, cursor, page);
            claimed += claim.entries().size();
            submit.submitAll(claim.entries());
            if (claim.last()) {
                break;
            }
            cursor = claim.next();
        }
        long fromOthers = Math.max(0, claimed - own);
        metrics.claimed((int) fromOthers);
        LOG.info("lease taken over partition={} stream={} pending_claimed={} own={} from_others={}",
                tenure.partition, tenure.stream, claimed, Math.min(own, claimed), fromOthers);
    }

    /** Once none of the partition's entries is in flight: hands back what stayed pending, releases the lease. */
    private void handBackWhenDone(Tenure tenure) {
        if (inFlight.countOf(tenure.stream) > 0) {
            return;
        }
        int handed = acks.handBack(tenure.stream, handBackIdle);
        boolean released = leases.release(tenure.partition);
        partitions.remove(tenure);
        LOG.info("lease given up partition={} stream={} handed_back={} released={}", tenure.partition,
                tenure.stream, handed, released);
    }

    /** Queues entries on the lanes, skipping those no longer to be delivered. */
    interface Submitter {
        void submitAll(List<org.fleetpipe.teltonika.bridge.stream.StreamEntry> entries) throws InterruptedException;
    }
}
