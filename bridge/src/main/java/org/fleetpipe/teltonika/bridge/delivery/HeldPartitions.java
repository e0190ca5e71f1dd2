package org.fleetpipe.teltonika.bridge.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions this replica holds leases on, shared by the lease keeper (takes, renews), the pump
 * (reads, hands over) and the lanes (deliver only what is {@link #deliverable}). A partition lost
 * is dropped from the lanes at once: its entries stay pending for the next holder.
 */
public final class HeldPartitions {

    private static final Logger LOG = LoggerFactory.getLogger(HeldPartitions.class);

    private final ConcurrentSkipListMap<Integer, Tenure> byPartition = new ConcurrentSkipListMap<>();
    private final ConcurrentHashMap<String, Tenure> byStream = new ConcurrentHashMap<>();
    private volatile Consumer<String> onLost = stream -> { };

    /** What to do with a lost partition's stream: drop its entries from the lanes. */
    public void onLost(Consumer<String> dropStream) {
        this.onLost = dropStream;
    }

    void add(Tenure tenure) {
        byPartition.put(tenure.partition, tenure);
        byStream.put(tenure.stream, tenure);
    }

    /** Forgets a tenure given up or lost (the pump, once it stopped reading it). */
    void remove(Tenure tenure) {
        byStream.remove(tenure.stream, tenure);
        byPartition.remove(tenure.partition, tenure);
    }

    boolean has(int partition) {
        return byPartition.containsKey(partition);
    }

    List<Tenure> all() {
        return new ArrayList<>(byPartition.values());
    }

    /**
     * Whether this replica may still deliver entries of {@code stream}: its lease is held and was
     * renewed in time. Past the deadline the partition counts as lost from here on.
     */
    public boolean deliverable(String stream) {
        Tenure tenure = byStream.get(stream);
        if (tenure == null || tenure.lost()) {
            return false;
        }
        if (tenure.pastDeadline(System.nanoTime())) {
            lose(tenure, "not renewed in time");
            return false;
        }
        return true;
    }

    /** Whether the pump may hand {@code stream}'s entries to the lanes: read, and deliverable. */
    boolean reading(String stream) {
        Tenure tenure = byStream.get(stream);
        return tenure != null && tenure.state() == Tenure.State.READING && !tenure.givingUp() && deliverable(stream);
    }

    /** Marks a partition lost: no more deliveries of it, its queued entries dropped unacknowledged. */
    void lose(Tenure tenure, String reason) {
        if (!tenure.markLost()) {
            return;
        }
        LOG.warn("lease lost partition={} stream={} reason=\"{}\": stopped delivering it, its entries stay pending"
                + " for the next holder", tenure.partition, tenure.stream, reason);
        onLost.accept(tenure.stream);
    }

    /** Partitions held and not lost: the {@code teltonika_bridge_partitions_held} gauge. */
    public int count() {
        return (int) byPartition.values().stream().filter(t -> !t.lost()).count();
    }

    /** The partitions held (not lost), in order: for logs and tests. */
    public List<Integer> partitions() {
        return byPartition.values().stream().filter(t -> !t.lost()).map(t -> t.partition).toList();
    }
}
