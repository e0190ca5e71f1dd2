package org.fleetpipe.teltonika.simulator.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.simulator.device.DeviceSettings;
import org.fleetpipe.teltonika.simulator.device.RecordBacklog;
import org.fleetpipe.teltonika.simulator.device.RecordGenerator;
import org.fleetpipe.teltonika.simulator.report.SimulatorStats;

/**
 * One fake tracker: generates records, keeps them until acknowledged, sends one packet at a time
 * and checks its ACK. The transport (TCP session or UDP datagrams) is the subclass's. All state
 * lives on one event loop, so nothing here needs a lock; the run thread only reads the two
 * volatile summaries.
 */
public abstract class SimulatedDevice {

    private static final long TICK_GRID_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    protected final String imei;
    protected final DeviceSettings settings;
    protected final EventLoop loop;
    protected final SimulatorStats stats;
    private final RecordGenerator generator;
    private final RecordBacklog backlog;

    private long packetsGenerated;
    private boolean generating = true;
    private boolean closed;
    private long sentAtNanos;
    private boolean acknowledgedOnce;
    private ScheduledFuture<?> tickTimer;
    /**
     * Checks the ACK deadline of whatever packet is in flight when it fires, and sets itself for
     * the next deadline: one timer per ACK timeout rather than one scheduled and cancelled per
     * packet (adding to and removing from the scheduler's queue was a visible part of the load
     * modes' CPU).
     */
    private ScheduledFuture<?> ackTimer;
    private final Runnable ackCheck = this::checkAckDeadline;
    private ScheduledFuture<?> retryTimer;
    private volatile int unacknowledged;
    private volatile boolean settled;

    protected SimulatedDevice(String imei, RecordGenerator generator, DeviceSettings settings, EventLoop loop,
                              SimulatorStats stats) {
        this.imei = imei;
        this.generator = generator;
        this.settings = settings;
        this.loop = loop;
        this.stats = stats;
        this.backlog = new RecordBacklog(settings.backlogCapacity());
        stats.deviceCreated();
    }

    public String imei() {
        return imei;
    }

    /** Opens the transport after {@code delayNanos}; in interval mode records start after {@code recordsDelayNanos}. */
    public final void start(long delayNanos, long recordsDelayNanos) {
        loop.execute(() -> {
            if (closed) {
                return;
            }
            if (!settings.closedLoop()) {
                long period = settings.interval().toNanos();
                long firstTick = onTickGrid(System.nanoTime() + recordsDelayNanos);
                tickTimer = loop.scheduleAtFixedRate(this::tick, Math.max(0, firstTick - System.nanoTime()), period,
                        TimeUnit.NANOSECONDS);
            }
            loop.schedule(this::open, delayNanos, TimeUnit.NANOSECONDS);
        });
    }

    /**
     * The first tick at or after {@code nanoTime} that falls on the grid. The devices of an event
     * loop whose turns fall in the same millisecond then share one wake-up instead of each waking
     * it on its own: wake-ups were about a quarter of the open-loop mode's CPU. The price: the
     * server gets the packets of a millisecond together rather than evenly spread, which real,
     * independent devices do not promise either.
     */
    static long onTickGrid(long nanoTime) {
        return nanoTime + Math.floorMod(-nanoTime, TICK_GRID_NANOS);
    }

    /** No new records from now on; what is in the backlog is still sent until acknowledged. */
    public final Future<?> finish() {
        return loop.submit(() -> {
            generating = false;
            cancel(tickTimer);
            publish();
        });
    }

    /** Stops everything and closes the transport. */
    public final Future<?> close() {
        return loop.submit(() -> {
            closed = true;
            generating = false;
            cancel(tickTimer);
            cancel(ackTimer);
            cancel(retryTimer);
            closeTransport();
            publish();
        });
    }

    /** Records generated and not yet acknowledged. */
    public final int unacknowledgedRecords() {
        return unacknowledged;
    }

    /** True once the device will generate nothing more and everything it generated was acknowledged. */
    public final boolean isSettled() {
        return settled;
    }

    protected final boolean isClosed() {
        return closed;
    }

    /** Records in memory, for {@code getinfo}. */
    protected final int storedRecords() {
        return backlog.size();
    }

    /** Starts the transport; it calls {@link #trySend()} once it can send. */
    protected abstract void open();

    protected abstract boolean readyToSend();

    /**
     * Writes the packet in flight ({@link #writeInFlightBody}, {@link #inFlightBodyBytes} or
     * {@link #inFlightPacket}); a failed write must end in {@link #packetLost()} or a timeout.
     */
    protected abstract void send();

    /** No ACK in time; the packet is already back in the backlog. */
    protected abstract void ackTimedOut();

    protected abstract void closeTransport();

    /** Largest AVL body (codec id .. number of data 2) that fits the transport's packet cap. */
    protected abstract int maxBodyBytes();

    private void tick() {
        generate();
        trySend();
    }

    private void generate() {
        if (!generating || packetsGenerated >= settings.maxPackets()) {
            return;
        }
        int records = settings.recordsPerPacket();
        int kept = generator.next(records, settings.interval(), backlog);
        stats.generated(records, records - kept);
        if (++packetsGenerated >= settings.maxPackets()) {
            cancel(tickTimer);
        }
        publish();
    }

    /** Sends the next packet if the transport is ready and none is waiting for its ACK. */
    protected final void trySend() {
        if (closed || backlog.hasInFlight() || !readyToSend()) {
            return;
        }
        if (settings.closedLoop() && !backlog.hasUnsent()) {
            generate();
        }
        int records = backlog.take(settings.recordsPerPacket(), maxBodyBytes());
        if (records == 0) {
            return;
        }
        sentAtNanos = System.nanoTime();
        stats.packetSent(records, backlog.inFlightResent(), sentAtNanos);
        if (ackTimer == null) {
            ackTimer = loop.schedule(ackCheck, settings.ackTimeout().toNanos(), TimeUnit.NANOSECONDS);
        }
        send();
    }

    /** Bytes of the AVL body of the packet in flight (codec id through number of data 2). */
    protected final int inFlightBodyBytes() {
        return backlog.inFlightBodyBytes();
    }

    /** Appends the AVL body of the packet in flight, as encoded when its records were generated. */
    protected final ByteBuf writeInFlightBody(ByteBuf out) {
        return backlog.writeInFlightBody(out, generator.codec());
    }

    /** The packet in flight as records; decoded, so only for paths where CPU does not matter (UDP). */
    protected final AvlPacket inFlightPacket() {
        return backlog.inFlightPacket(generator.codec());
    }

    /** The server acknowledged {@code records} records of the packet in flight. */
    protected final void ackReceived(long records) {
        if (!backlog.hasInFlight()) {
            stats.unexpectedAck();
            return;
        }
        long now = System.nanoTime();
        int expected = backlog.inFlightCount();
        if (records != expected) {
            // The records stay and go again, after a pause so a server that miscounts is not hammered.
            backlog.returnInFlight();
            stats.ackMismatch();
            retryTimer = loop.schedule(this::trySend, settings.interval().toNanos(), TimeUnit.NANOSECONDS);
            return;
        }
        if (stats.hearsAcknowledgedRecords()) {
            stats.acknowledgedRecords(imei, backlog.inFlightPacket(generator.codec()).records());
        }
        backlog.acknowledge();
        stats.acknowledged(expected, now - sentAtNanos, now);
        if (!acknowledgedOnce) {
            acknowledgedOnce = true;
            stats.firstAcknowledged(now);
        }
        publish();
        trySend();
    }

    /** The packet in flight will get no ACK (connection lost): its records wait for the next chance. */
    protected final void packetLost() {
        if (backlog.hasInFlight()) {
            backlog.returnInFlight();
        }
    }

    private void checkAckDeadline() {
        ackTimer = null;
        if (closed || !backlog.hasInFlight()) {
            return;
        }
        long left = sentAtNanos + settings.ackTimeout().toNanos() - System.nanoTime();
        if (left > 0) {
            ackTimer = loop.schedule(ackCheck, left, TimeUnit.NANOSECONDS);
            return;
        }
        stats.ackTimedOut();
        backlog.returnInFlight();
        ackTimedOut();
    }

    private void publish() {
        unacknowledged = backlog.size();
        settled = backlog.isEmpty() && (!generating || packetsGenerated >= settings.maxPackets());
    }

    protected static void cancel(ScheduledFuture<?> timer) {
        if (timer != null) {
            timer.cancel(false);
        }
    }
}
