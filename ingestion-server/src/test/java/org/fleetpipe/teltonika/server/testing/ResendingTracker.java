package org.fleetpipe.teltonika.server.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;

/**
 * A tracker as firmware behaves: sends a packet and waits for its ACK; without one (connection
 * closed, no answer in time) it reconnects and resends the same packet, and only an acknowledged
 * packet is replaced by the next. Runs on a thread of its own until {@link #stop()}; bounded in
 * attempts.
 */
public final class ResendingTracker implements Runnable {

    private static final int MAX_ATTEMPTS = 2_000;

    private final String imei;
    private final int port;
    private final RandomAvl random;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong lastAckAt = new AtomicLong();
    private final List<AvlRecord> stored = new ArrayList<>();
    private final Thread thread;

    private ResendingTracker(String imei, int port, long seed) {
        this.imei = imei;
        this.port = port;
        this.random = new RandomAvl(seed);
        this.thread = new Thread(this, "tracker-" + imei);
        thread.setDaemon(true);
    }

    /** Starts a tracker sending to {@code port} on loopback. */
    public static ResendingTracker start(String imei, int port, long seed) {
        ResendingTracker tracker = new ResendingTracker(imei, port, seed);
        tracker.thread.start();
        return tracker;
    }

    @Override
    public void run() {
        AvlPacket packet = random.packet(CodecId.CODEC_8E, 2);
        for (int attempt = 0; attempt < MAX_ATTEMPTS && running.get(); attempt++) {
            try (DeviceClient device = DeviceClient.connect(port)) {
                if (device.login(imei) != 1) {
                    continue;
                }
                while (running.get()) {
                    if (device.sendAndReadAck(Frames.avl(packet)) != packet.size()) {
                        break;
                    }
                    synchronized (stored) {
                        stored.addAll(packet.records());
                    }
                    acknowledged.incrementAndGet();
                    lastAckAt.set(System.currentTimeMillis());
                    packet = random.packet(CodecId.CODEC_8E, 2);
                    Thread.sleep(20);
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                // No ACK: like a tracker, try again shortly with the same packet.
                try {
                    Thread.sleep(200);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }
    }

    public String imei() {
        return imei;
    }

    /** Packets acknowledged so far. */
    public long acknowledged() {
        return acknowledged.get();
    }

    /** When the last ACK came (ms since the epoch); 0 before the first. */
    public long lastAckAt() {
        return lastAckAt.get();
    }

    /** The records of every acknowledged packet, in the order they were acknowledged. */
    public List<AvlRecord> acknowledgedRecords() {
        synchronized (stored) {
            return List.copyOf(stored);
        }
    }

    /** Stops sending and waits for the thread (at most the client's read timeout). */
    public void stop() throws InterruptedException {
        running.set(false);
        thread.join(DeviceClient.READ_TIMEOUT_MS + 5_000L);
    }
}
