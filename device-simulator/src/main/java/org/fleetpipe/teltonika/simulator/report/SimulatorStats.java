package org.fleetpipe.teltonika.simulator.report;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;

/** Counters every device updates from its event loop and the reporting thread reads. */
public final class SimulatorStats {

    private final AtomicInteger devices = new AtomicInteger();
    private final AtomicInteger connected = new AtomicInteger();
    private final LongAdder recordsGenerated = new LongAdder();
    private final LongAdder packetsSent = new LongAdder();
    private final LongAdder recordsSent = new LongAdder();
    private final LongAdder recordsResent = new LongAdder();
    private final LongAdder packetsAcknowledged = new LongAdder();
    private final LongAdder recordsAcknowledged = new LongAdder();
    private final LongAdder recordsDropped = new LongAdder();
    private final LongAdder reconnects = new LongAdder();
    private final LongAdder connectFailures = new LongAdder();
    private final LongAdder loginRefusals = new LongAdder();
    private final LongAdder ackTimeouts = new LongAdder();
    private final LongAdder ackMismatches = new LongAdder();
    private final LongAdder unexpectedAcks = new LongAdder();
    private final LongAdder commandsAnswered = new LongAdder();
    private final AtomicLong firstSendNanos = new AtomicLong();
    /** Striped, as the counters are: every ACK updates it. */
    private final LongAccumulator lastAckNanos = new LongAccumulator(Math::max, 0);
    private final LatencyRecorder latency = new LatencyRecorder();
    private final AtomicInteger devicesAcknowledged = new AtomicInteger();
    /** When the latest of the devices' first ACKs came: a fresh server's warm start ends there for the fleet. */
    private final LongAccumulator lastFirstAckNanos = new LongAccumulator(Math::max, 0);

    public void deviceCreated() {
        devices.incrementAndGet();
    }

    public void connected() {
        connected.incrementAndGet();
    }

    public void disconnected() {
        connected.decrementAndGet();
    }

    public void generated(int records, int dropped) {
        recordsGenerated.add(records);
        recordsDropped.add(dropped);
    }

    public void packetSent(int records, int resent, long nowNanos) {
        packetsSent.increment();
        recordsSent.add(records);
        recordsResent.add(resent);
        if (firstSendNanos.get() == 0) {
            // Read first: a compare-and-set on every packet fights over the cache line between event loops.
            firstSendNanos.compareAndSet(0, nowNanos);
        }
    }

    private volatile BiConsumer<String, List<AvlRecord>> ackListener;

    /** Hears every acknowledged record with its IMEI (fault tests check each is in the stream). */
    public void onAcknowledged(BiConsumer<String, List<AvlRecord>> listener) {
        this.ackListener = listener;
    }

    /** Whether anyone listens to {@link #acknowledgedRecords}: the records are decoded only for a listener. */
    public boolean hearsAcknowledgedRecords() {
        return ackListener != null;
    }

    public void acknowledgedRecords(String imei, List<AvlRecord> records) {
        BiConsumer<String, List<AvlRecord>> listener = ackListener;
        if (listener != null) {
            listener.accept(imei, records);
        }
    }

    public void acknowledged(int records, long latencyNanos, long nowNanos) {
        packetsAcknowledged.increment();
        recordsAcknowledged.add(records);
        latency.recordNanos(latencyNanos);
        lastAckNanos.accumulate(nowNanos);
    }

    /** A device's first ACK of the run, once per device. */
    public void firstAcknowledged(long nowNanos) {
        devicesAcknowledged.incrementAndGet();
        lastFirstAckNanos.accumulate(nowNanos);
    }

    /** Devices that had at least one ACK. */
    public int devicesAcknowledged() {
        return devicesAcknowledged.get();
    }

    /** The latest of the devices' first ACKs (System.nanoTime), 0 before any. */
    public long lastFirstAckNanos() {
        return lastFirstAckNanos.get();
    }

    public void reconnect() {
        reconnects.increment();
    }

    public void connectFailed() {
        connectFailures.increment();
    }

    public void loginRefused() {
        loginRefusals.increment();
    }

    public void ackTimedOut() {
        ackTimeouts.increment();
    }

    public void ackMismatch() {
        ackMismatches.increment();
    }

    public void unexpectedAck() {
        unexpectedAcks.increment();
    }

    public void commandAnswered() {
        commandsAnswered.increment();
    }

    public LatencyRecorder latency() {
        return latency;
    }

    public StatsSnapshot snapshot() {
        return new StatsSnapshot(devices.get(), connected.get(), recordsGenerated.sum(), packetsSent.sum(),
                recordsSent.sum(), recordsResent.sum(), packetsAcknowledged.sum(), recordsAcknowledged.sum(),
                recordsDropped.sum(), reconnects.sum(), connectFailures.sum(), loginRefusals.sum(),
                ackTimeouts.sum(), ackMismatches.sum(), unexpectedAcks.sum(), commandsAnswered.sum(),
                firstSendNanos.get(), lastAckNanos.get());
    }
}
