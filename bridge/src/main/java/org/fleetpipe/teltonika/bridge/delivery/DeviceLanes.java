package org.fleetpipe.teltonika.bridge.delivery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.fleetpipe.teltonika.bridge.ops.BridgeMetrics;
import org.fleetpipe.teltonika.bridge.sink.Sink;
import org.fleetpipe.teltonika.bridge.stream.BridgeDeadLetters;
import org.fleetpipe.teltonika.bridge.stream.EntryAcks;
import org.fleetpipe.teltonika.bridge.stream.StreamEntry;

/**
 * The lanes a replica delivers on: a device always goes to the same lane (by its IMEI), so its
 * records are sent one batch after the other, while other devices' lanes go on in parallel.
 */
public final class DeviceLanes {

    private final List<Lane> lanes = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final HeldEntries held;

    public DeviceLanes(int count, int batchSize, Sink sink, RecordMaker maker, EntryAcks acks,
                       BridgeDeadLetters deadLetters, Backoff backoff, HeldEntries held, BridgeMetrics metrics) {
        this(count, batchSize, sink, maker, acks, deadLetters, backoff, held, metrics, stream -> true);
    }

    /** As above, delivering an entry only while {@code deliverable} says so of its stream (its lease is held). */
    public DeviceLanes(int count, int batchSize, Sink sink, RecordMaker maker, EntryAcks acks,
                       BridgeDeadLetters deadLetters, Backoff backoff, HeldEntries held, BridgeMetrics metrics,
                       Predicate<String> deliverable) {
        this.held = held;
        for (int i = 0; i < count; i++) {
            lanes.add(new Lane(i, 2 * batchSize, batchSize, sink, maker, acks, deadLetters, backoff, held, metrics,
                    deliverable));
        }
    }

    int count() {
        return lanes.size();
    }

    public void start() {
        for (int i = 0; i < lanes.size(); i++) {
            Thread thread = new Thread(lanes.get(i), "bridge-lane-" + i);
            threads.add(thread);
            thread.start();
        }
    }

    /**
     * Hands an entry to its device's lane, waiting while that lane is full.
     *
     * @return false when the entry was already held (claimed back while this replica works on it), or
     *     when {@code stillRunning} turned false while waiting
     */
    boolean submit(StreamEntry entry, java.util.function.BooleanSupplier stillRunning) throws InterruptedException {
        return !holdAll(List.of(entry)).isEmpty() && queue(entry, stillRunning);
    }

    /**
     * Holds the entries not held yet and returns them, in order: from here on the touches keep them
     * from looking abandoned, however long they wait for a lane. One already held (claimed back
     * while this replica works on it) is left out.
     */
    List<StreamEntry> holdAll(List<StreamEntry> entries) {
        List<StreamEntry> newlyHeld = new ArrayList<>(entries.size());
        for (StreamEntry entry : entries) {
            if (held.hold(entry.ref())) {
                newlyHeld.add(entry);
            }
        }
        return newlyHeld;
    }

    /** Lets go of held entries that will not reach a lane: they stay pending in the group. */
    void release(List<StreamEntry> entries) {
        held.release(entries.stream().map(StreamEntry::ref).toList());
    }

    /**
     * Hands a held entry to its device's lane, waiting while that lane is full; when
     * {@code stillRunning} turns false meanwhile, releases it and returns false.
     */
    boolean queue(StreamEntry entry, java.util.function.BooleanSupplier stillRunning) throws InterruptedException {
        Lane lane = lanes.get(Math.floorMod(entry.imei().hashCode(), lanes.size()));
        while (!lane.offer(entry, 100, TimeUnit.MILLISECONDS)) {
            if (!stillRunning.getAsBoolean()) {
                held.release(List.of(entry.ref()));
                return false;
            }
        }
        return true;
    }

    /**
     * Drops the queued entries of {@code stream} (a partition given up or lost) from every lane,
     * unacknowledged: they stay pending. Batches already in a lane's hands are not recalled.
     */
    public void drop(String stream) {
        lanes.forEach(lane -> lane.drop(stream));
    }

    /** Lets every lane finish the batch in hand within {@code grace}, then waits for them. */
    public void stop(Duration grace) throws InterruptedException {
        long abandonAt = System.nanoTime() + grace.toNanos();
        lanes.forEach(lane -> lane.stop(abandonAt));
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(abandonAt - System.nanoTime()) + 1_000));
        }
    }
}
