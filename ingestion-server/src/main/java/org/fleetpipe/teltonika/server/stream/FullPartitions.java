package org.fleetpipe.teltonika.server.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;
import org.fleetpipe.teltonika.codec.Imei;

/**
 * Which partitions' streams are full: engaged when a stream (or Redis's memory) reached its cap
 * while groups read it, let go once back below the resume marks. Written by the retention thread,
 * read by the event loops through {@link #partitionIfEngaged}.
 */
final class FullPartitions {

    private static final long REMIND_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final StreamRetentionSettings partitionSettings;
    private final ToIntFunction<Imei> partitionOf;
    private final StreamFullLog log;
    /** Per partition, whether its stream is full; written by the retention thread before {@link #engaged}. */
    private final boolean[] full;
    private final long[] fullSinceNanos;
    private final AtomicLong engagedTotal = new AtomicLong();
    /** Whether any partition is full; its write publishes {@link #full} to the event loops. */
    private volatile boolean engaged;
    private long engagedAtNanos;
    private long remindedAtNanos;

    /** {@code partitionOf} gives a device's partition of {@code partitions}; each has its share of the caps. */
    FullPartitions(StreamRetentionSettings settings, int partitions, ToIntFunction<Imei> partitionOf) {
        this.partitionSettings = settings.perPartition(partitions);
        this.partitionOf = partitionOf;
        this.full = new boolean[partitions];
        this.fullSinceNanos = new long[partitions];
        this.log = new StreamFullLog(settings, partitionSettings, partitions);
    }

    /**
     * The device's partition while any is full, else -1: the partition is looked for only then.
     * Read {@link #full(int)} after this, which the volatile read here makes current.
     */
    int partitionIfEngaged(Imei imei) {
        return engaged ? partitionOf(imei) : -1;
    }

    int partitionOf(Imei imei) {
        return full.length == 1 ? 0 : partitionOf.applyAsInt(imei);
    }

    boolean full(int partition) {
        return full[partition];
    }

    /**
     * Takes the retention pass's view of each partition ({@code partitions}, partition 0 first) and
     * of them all ({@code combined}); {@code held} packets are held now, for the log lines.
     * Retention thread only.
     */
    void update(List<StreamSnapshot> partitions, StreamSnapshot combined, long nowNanos, int held) {
        boolean wasEngaged = engaged;
        boolean anyFull = false;
        for (int p = 0; p < full.length && p < partitions.size(); p++) {
            StreamSnapshot stream = partitions.get(p);
            if (!full[p] && partitionSettings.full(stream)) {
                full[p] = true;
                fullSinceNanos[p] = nowNanos;
                log.filled(p, stream);
            } else if (full[p] && partitionSettings.clear(stream)) {
                full[p] = false;
                log.cleared(p, stream, TimeUnit.NANOSECONDS.toSeconds(nowNanos - fullSinceNanos[p]), held);
            }
            anyFull |= full[p];
        }
        engaged = anyFull;
        if (anyFull && !wasEngaged) {
            engagedTotal.incrementAndGet();
            engagedAtNanos = nowNanos;
            remindedAtNanos = nowNanos;
        } else if (anyFull && nowNanos - remindedAtNanos >= REMIND_EVERY_NANOS) {
            remindedAtNanos = nowNanos;
            log.stillFull(TimeUnit.NANOSECONDS.toSeconds(nowNanos - engagedAtNanos), fullOnes(), combined, held);
        }
    }

    boolean engaged() {
        return engaged;
    }

    /** Partitions whose stream is full now. */
    int count() {
        int n = 0;
        for (boolean f : full) {
            n += f ? 1 : 0;
        }
        return n;
    }

    long engagedTotal() {
        return engagedTotal.get();
    }

    private List<Integer> fullOnes() {
        List<Integer> which = new ArrayList<>();
        for (int p = 0; p < full.length; p++) {
            if (full[p]) {
                which.add(p);
            }
        }
        return which;
    }
}
