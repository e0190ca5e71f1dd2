package org.fleetpipe.teltonika.bridge.delivery;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.time.Duration;
import org.fleetpipe.teltonika.bridge.ops.BridgeMetrics;
import org.fleetpipe.teltonika.bridge.sink.OutboundRecord;
import org.fleetpipe.teltonika.bridge.sink.Outcome;
import org.fleetpipe.teltonika.bridge.sink.Sink;
import org.fleetpipe.teltonika.bridge.stream.BridgeDeadLetters;
import org.fleetpipe.teltonika.bridge.stream.EntryAcks;
import org.fleetpipe.teltonika.bridge.stream.EntryId;
import org.fleetpipe.teltonika.bridge.stream.StreamEntry;
import org.fleetpipe.teltonika.payload.MalformedEntryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the entries of the devices hashed to it, one batch at a time, so a device's records
 * reach the sink in the order they were read. When the sink asks for a retry, a device's later
 * records in the batch wait with the failed one (sent again even if the sink took them, counted
 * as duplicates) instead of overtaking it. A sink not accepting is retried without limit; only a
 * record refused on its own becomes a dead letter.
 */
final class Lane implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(Lane.class);

    private final int index;
    private final BlockingQueue<StreamEntry> queue;
    private final int batchSize;
    private final Sink sink;
    private final RecordMaker maker;
    private final EntryAcks acks;
    private final BridgeDeadLetters deadLetters;
    private final Backoff backoff;
    private final HeldEntries held;
    private final BridgeMetrics metrics;
    private final Predicate<String> deliverable;
    private volatile boolean stopping;
    private volatile long abandonAtNanos = Long.MAX_VALUE;
    /** Whether the sink's last call threw: its stack is logged once per such period. */
    private boolean sinkThrowing;

    Lane(int index, int capacity, int batchSize, Sink sink, RecordMaker maker, EntryAcks acks,
         BridgeDeadLetters deadLetters, Backoff backoff, HeldEntries held, BridgeMetrics metrics,
         Predicate<String> deliverable) {
        this.index = index;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.batchSize = batchSize;
        this.sink = sink;
        this.maker = maker;
        this.acks = acks;
        this.deadLetters = deadLetters;
        this.backoff = backoff;
        this.held = held;
        this.metrics = metrics;
        this.deliverable = deliverable;
    }

    /** Queues an entry, waiting while the lane is full: that is what stops the reading. */
    boolean offer(StreamEntry entry, long timeout, TimeUnit unit) throws InterruptedException {
        return queue.offer(entry, timeout, unit);
    }

    /** Removes the queued entries of a stream whose lease is gone; they stay pending, unacknowledged. */
    void drop(String stream) {
        List<StreamEntry> dropped = new ArrayList<>();
        queue.removeIf(entry -> {
            if (entry.stream().equals(stream)) {
                dropped.add(entry);
                return true;
            }
            return false;
        });
        held.release(dropped.stream().map(StreamEntry::ref).toList());
    }

    /** Finish the batch in hand, start no other; give up retrying it at {@code abandonAt}. */
    void stop(long abandonAt) {
        abandonAtNanos = abandonAt;
        stopping = true;
    }

    @Override
    public void run() {
        List<StreamEntry> batch = new ArrayList<>(batchSize);
        try {
            while (!stopping) {
                StreamEntry first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, batchSize - 1);
                try {
                    deliver(batch);
                } catch (RuntimeException e) {
                    // Unacknowledged and no longer held: claimed again after the claim idle time.
                    LOG.error("lane={} dropped a batch of entries={} unacknowledged: {}", index, batch.size(),
                            e.toString(), e);
                } finally {
                    // Acknowledged ones are gone already; the rest stay pending for redelivery.
                    held.release(batch.stream().map(StreamEntry::ref).toList());
                    batch.clear();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // Read but never started: left pending in the group, for this consumer's restart or a claim.
        List<StreamEntry> left = new ArrayList<>();
        queue.drainTo(left);
        held.release(left.stream().map(StreamEntry::ref).toList());
    }

    private void deliver(List<StreamEntry> batch) throws InterruptedException {
        List<EntryId> done = new ArrayList<>(batch.size());
        List<StreamEntry> recordEntries = new ArrayList<>(batch.size());
        List<OutboundRecord> records = new ArrayList<>(batch.size());
        maker.prepare(batch, metrics);
        int trimmed = 0;
        for (StreamEntry entry : batch) {
            if (entry.body().isEmpty()) {
                trimmed++;
                done.add(entry.ref());
                continue;
            }
            try {
                records.add(maker.make(entry));
                recordEntries.add(entry);
            } catch (MalformedEntryException e) {
                if (!deadLetter(entry, "malformed: " + e.getMessage())) {
                    return;
                }
                metrics.malformed();
                done.add(entry.ref());
            }
        }
        metrics.trimmed(trimmed);
        send(records, recordEntries, done);
    }

    /**
     * Sends the records until each one is delivered or dead-lettered, acknowledging as it goes
     * ({@code done} first: entries of the batch finished before). A request refused as a whole for a
     * record in it is split in two, the first half sent (retries included) before the second, until
     * the refused record stands alone: only it is dead-lettered, and a device's records still reach
     * the sink in order. False when the lane stopped, or a record's lease went, first: the rest stays
     * pending in the group.
     */
    private boolean send(List<OutboundRecord> records, List<StreamEntry> recordEntries, List<EntryId> done)
            throws InterruptedException {
        int attempt = 0;
        while (true) {
            dropUndeliverable(records, recordEntries);
            if (records.isEmpty()) {
                // Nothing (left) to send, or its lease is gone: left pending for the partition's
                // next holder. What else the batch held (dead letters, trimmed entries) is done.
                return done.isEmpty() || acknowledge(done);
            }
            long started = System.nanoTime();
            List<Outcome> outcomes = ask(records);
            metrics.sinkAnswered(System.nanoTime() - started);
            long now = System.currentTimeMillis();
            if (records.size() > 1 && outcomes.stream().anyMatch(o -> o.kind() == Outcome.Kind.BATCH_REJECTED)) {
                metrics.sinkFailing(false, now);
                metrics.sinkRefusing(false, now);
                metrics.split();
                // One line for a whole batch refused; its smaller halves at debug.
                if (records.size() > batchSize / 2) {
                    LOG.info("sink={} lane={} refused a request of records={} as a whole reason=\"{}\": splitting it to"
                            + " find the record refused", sink.name(), index, records.size(), firstReason(outcomes));
                } else {
                    LOG.debug("sink={} lane={} splitting records={}", sink.name(), index, records.size());
                }
                int half = records.size() / 2;
                return send(new ArrayList<>(records.subList(0, half)),
                        new ArrayList<>(recordEntries.subList(0, half)), done)
                        && send(new ArrayList<>(records.subList(half, records.size())),
                        new ArrayList<>(recordEntries.subList(half, records.size())), new ArrayList<>());
            }
            List<StreamEntry> retryEntries = new ArrayList<>();
            List<OutboundRecord> retryRecords = new ArrayList<>();
            Set<String> stalled = new HashSet<>();
            Duration wait = Duration.ZERO;
            String reason = "";
            boolean refusing = false;
            int delivered = 0;
            int duplicates = 0;
            for (int i = 0; i < records.size(); i++) {
                OutboundRecord record = records.get(i);
                Outcome outcome = outcomes.get(i);
                StreamEntry entry = recordEntries.get(i);
                if (stalled.contains(record.imei()) || outcome.isRetry()) {
                    if (outcome.kind() == Outcome.Kind.DELIVERED) {
                        duplicates++;
                    }
                    if (outcome.isRetry()) {
                        reason = outcome.reason();
                        refusing |= outcome.kind() == Outcome.Kind.REFUSING;
                        if (outcome.retryAfter().compareTo(wait) > 0) {
                            wait = outcome.retryAfter();
                        }
                    }
                    stalled.add(record.imei());
                    retryEntries.add(entry);
                    retryRecords.add(record);
                } else if (outcome.kind() == Outcome.Kind.REJECTED || outcome.kind() == Outcome.Kind.BATCH_REJECTED) {
                    if (!deadLetter(entry, sink.name() + " refused: " + outcome.reason())) {
                        return false;
                    }
                    metrics.refused();
                    done.add(entry.ref());
                } else {
                    delivered++;
                    metrics.deliveryDelay(record.rxMillis());
                    done.add(entry.ref());
                }
            }
            if (!done.isEmpty() && !acknowledge(done)) {
                return false;
            }
            metrics.delivered(delivered);
            metrics.duplicates(duplicates);
            done.clear();
            metrics.sinkFailing(!retryRecords.isEmpty(), now);
            metrics.sinkRefusing(refusing, now);
            if (retryRecords.isEmpty()) {
                return true;
            }
            if (attempt == 0 || attempt % 10 == 0) {
                LOG.warn("sink={} lane={} attempt={} retrying={} devices={} {}reason=\"{}\"", sink.name(), index,
                        attempt + 1, retryRecords.size(), stalled.size(), refusing ? "refusing=true " : "", reason);
            }
            Duration pause = backoff.next(attempt++);
            if (!pauseUnlessAbandoned(pause.compareTo(wait) >= 0 ? pause : wait)) {
                abandon(retryEntries);
                return false;
            }
            metrics.retried(retryRecords.size());
            records = retryRecords;
            recordEntries = retryEntries;
        }
    }

    private static String firstReason(List<Outcome> outcomes) {
        return outcomes.stream().filter(o -> o.kind() == Outcome.Kind.BATCH_REJECTED).findFirst()
                .map(Outcome::reason).orElse("");
    }

    /**
     * Takes out the records whose partition's lease is gone, checked before every call to the sink
     * (retries included); true when it took any out.
     */
    private boolean dropUndeliverable(List<OutboundRecord> records, List<StreamEntry> recordEntries) {
        boolean dropped = false;
        for (int i = records.size() - 1; i >= 0; i--) {
            if (!deliverable.test(recordEntries.get(i).stream())) {
                records.remove(i);
                recordEntries.remove(i);
                dropped = true;
            }
        }
        return dropped;
    }

    /** The sink's answer; a sink that throws (a bug, a closed client) is a failure to retry, not a dead lane. */
    private List<Outcome> ask(List<OutboundRecord> records) throws InterruptedException {
        try {
            List<Outcome> outcomes = sink.deliver(records);
            sinkThrowing = false;
            if (outcomes.size() == records.size()) {
                return outcomes;
            }
            return java.util.Collections.nCopies(records.size(),
                    Outcome.retry("sink answered " + outcomes.size() + " outcomes for " + records.size() + " records"));
        } catch (RuntimeException e) {
            // The stack once per failing period; the retries' own warning repeats the reason.
            if (!sinkThrowing) {
                LOG.error("sink={} lane={} failed unexpectedly: {}", sink.name(), index, e.toString(), e);
            }
            sinkThrowing = true;
            return java.util.Collections.nCopies(records.size(), Outcome.retry("sink error: " + e));
        }
    }

    /** XACK, retried while Redis is away; false when the stop deadline came first (entries stay pending). */
    private boolean acknowledge(List<EntryId> ids) throws InterruptedException {
        for (int attempt = 0; ; attempt++) {
            try {
                acks.ack(ids);
                return true;
            } catch (RuntimeException e) {
                metrics.redisError();
                LOG.warn("lane={} ack failed entries={} error=\"{}\"", index, ids.size(), e.getMessage());
                if (!pauseUnlessAbandoned(backoff.next(attempt))) {
                    return false;
                }
            }
        }
    }

    /**
     * Writes the dead letter, retried while Redis is away and held while the dead-letter stream is at
     * its cap (the entry stays unacknowledged, and the lane sends nothing else meanwhile); false when
     * the stop deadline came first or the entry's lease went.
     */
    private boolean deadLetter(StreamEntry entry, String reason) throws InterruptedException {
        boolean holding = false;
        try {
            for (int attempt = 0; ; attempt++) {
                if (!deliverable.test(entry.stream())) {
                    return false;
                }
                try {
                    if (deadLetters.add(entry, sink.name(), reason)) {
                        LOG.warn("sink={} dead-lettered id={} imei={} reason=\"{}\"", sink.name(), entry.id(),
                                entry.imei(), reason.length() <= 160 ? reason : reason.substring(0, 160) + "...");
                        return true;
                    }
                    if (!holding) {
                        holding = true;
                        metrics.holdingForDeadLetterRoom(true);
                        LOG.error("sink={} lane={} dead letters full: holding id={} imei={} unacknowledged until"
                                + " dlq:bridge:<group> is drained below --dead-letter-max (OPERATIONS.md, \"Bridge dead"
                                + " letters full\")", sink.name(), index, entry.id(), entry.imei());
                    }
                } catch (RuntimeException e) {
                    metrics.redisError();
                }
                if (!pauseUnlessAbandoned(backoff.next(attempt))) {
                    return false;
                }
            }
        } finally {
            if (holding) {
                metrics.holdingForDeadLetterRoom(false);
            }
        }
    }

    private void abandon(List<StreamEntry> entries) {
        LOG.warn("sink={} lane={} stopping with entries={} unconfirmed: left pending for redelivery", sink.name(),
                index, entries.size());
    }

    /** Waits, unless the stop deadline passes first. */
    private boolean pauseUnlessAbandoned(Duration pause) throws InterruptedException {
        long wakeAt = System.nanoTime() + pause.toNanos();
        while (System.nanoTime() < wakeAt) {
            if (System.nanoTime() >= abandonAtNanos) {
                return false;
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(wakeAt - System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(100)));
        }
        return System.nanoTime() < abandonAtNanos;
    }
}
