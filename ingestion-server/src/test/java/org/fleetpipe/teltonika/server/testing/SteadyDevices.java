package org.fleetpipe.teltonika.server.testing;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import io.netty.buffer.Unpooled;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.codec.udp.UdpAck;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;

/**
 * Well-behaved trackers next to an attack: each logs in (TCP) or just sends (UDP), then sends a
 * packet (one record unless asked for more) every {@code interval} and waits for its ACK, recording
 * every ACK's latency. One thread per device; {@link #stop()} ends them and reports what they saw.
 */
public final class SteadyDevices implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SteadyDevices.class);

    /** What the devices saw: packets sent and acknowledged, and the ACK latencies. */
    public record Result(long sent, long acknowledged, long maxLatencyMillis, long p99LatencyMillis,
                         List<String> errors) {
    }

    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private final ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    private volatile boolean running = true;
    private int recordsPerPacket = 1;
    private Result stopped;

    private SteadyDevices() {
    }

    /** TCP devices, one per IMEI, each logged in before this returns. */
    public static SteadyDevices tcp(InetSocketAddress server, List<String> imeis, Duration interval)
            throws Exception {
        return tcpFrom(List.of(), server, imeis, interval, 1);
    }

    /**
     * As {@link #tcp}, device i connecting from {@code sources} i (another host on 127.0.0.0/8; the
     * default address past the list's end) and sending {@code recordsPerPacket} records a packet.
     */
    public static SteadyDevices tcpFrom(List<InetAddress> sources, InetSocketAddress server, List<String> imeis,
                                        Duration interval, int recordsPerPacket) throws Exception {
        SteadyDevices devices = new SteadyDevices();
        devices.recordsPerPacket = recordsPerPacket;
        for (int i = 0; i < imeis.size(); i++) {
            String imei = imeis.get(i);
            DeviceClient client = DeviceClient.connectFrom(i < sources.size() ? sources.get(i) : null, server);
            if (client.login(imei) != 0x01) {
                client.close();
                throw new IllegalStateException("steady device " + imei + " was not let in");
            }
            devices.run("steady-tcp-" + imei, () -> {
                try (client) {
                    devices.loop(interval, packet -> {
                        client.send(Frames.avl(packet));
                        return client.readAck() == packet.size();
                    });
                }
            });
        }
        return devices;
    }

    /**
     * UDP devices, one per IMEI, each on its own socket. Like a real tracker, a device resends a
     * datagram whose ACK is not back within a second (UDP may drop it), up to three times; the ACK
     * latency counts from the first send.
     */
    public static SteadyDevices udp(InetSocketAddress server, List<String> imeis, Duration interval)
            throws Exception {
        SteadyDevices devices = new SteadyDevices();
        for (String imei : imeis) {
            DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress());
            socket.setSoTimeout(1_000);
            devices.run("steady-udp-" + imei, () -> {
                try (socket) {
                    int[] packetId = {0};
                    devices.loop(interval, packet -> {
                        int id = packetId[0]++ & 0xFFFF;
                        byte[] datagram = Frames.udp(new UdpPacket(id, id & 0xFF, imei, packet));
                        for (int attempt = 0; attempt < 3; attempt++) {
                            socket.send(new DatagramPacket(datagram, datagram.length, server));
                            UdpAck ack = receiveAck(socket, id);
                            if (ack != null) {
                                return ack.records() == packet.size();
                            }
                        }
                        return false;
                    });
                }
            });
        }
        return devices;
    }

    /** The ACK of packet {@code id}, skipping late ACKs of earlier ones; null after a second without it. */
    private static UdpAck receiveAck(DatagramSocket socket, int id) throws Exception {
        while (true) {
            UdpAck ack = nextAck(socket);
            if (ack == null || ack.packetId() == id) {
                return ack;
            }
        }
    }

    /** The next ACK datagram on {@code socket}, or null when none came within its read timeout. */
    public static UdpAck nextAck(DatagramSocket socket) throws Exception {
        byte[] buffer = new byte[64];
        DatagramPacket reply = new DatagramPacket(buffer, buffer.length);
        try {
            socket.receive(reply);
        } catch (SocketTimeoutException e) {
            return null;
        }
        return UdpAck.read(Unpooled.wrappedBuffer(Arrays.copyOf(buffer, reply.getLength())));
    }

    private interface Exchange {
        /** Sends {@code packet}; true when its ACK came back and was right. */
        boolean send(AvlPacket packet) throws Exception;
    }

    private interface Body {
        void run() throws Exception;
    }

    private void run(String name, Body body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                if (running) {
                    errors.add(name + ": " + e);
                }
            }
        }, name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    private void loop(Duration interval, Exchange exchange) throws Exception {
        RandomAvl random = new RandomAvl(System.nanoTime());
        while (running) {
            AvlPacket packet = random.packet(CodecId.CODEC_8, recordsPerPacket);
            long start = System.nanoTime();
            sent.incrementAndGet();
            if (exchange.send(packet)) {
                acknowledged.incrementAndGet();
                latencies.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            } else {
                errors.add(Thread.currentThread().getName() + ": no or wrong ACK");
            }
            Thread.sleep(interval.toMillis());
        }
    }

    /**
     * Lets the devices acknowledge {@code more} packets (the attack is over or still going), then
     * stops them and asserts they were served: every packet sent acknowledged, no error, the
     * slowest ACK under 3 s.
     */
    public void assertServed(int more) throws InterruptedException {
        long before = acknowledged.get();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.get() >= before + more);
        Result result = stop();
        org.assertj.core.api.Assertions.assertThat(result.errors()).isEmpty();
        org.assertj.core.api.Assertions.assertThat(result.acknowledged()).isEqualTo(result.sent());
        org.assertj.core.api.Assertions.assertThat(result.maxLatencyMillis())
                .as("slowest ACK of the steady devices (p99 %d ms)", result.p99LatencyMillis()).isLessThan(3_000);
    }

    /** The slowest ACK so far, in milliseconds. */
    public long slowestAckMillis() {
        return latencies.stream().mapToLong(Long::longValue).max().orElse(0);
    }

    /** Errors so far (a missing or wrong ACK). */
    public List<String> errors() {
        return List.copyOf(errors);
    }

    /** Packets acknowledged so far. */
    public long acknowledged() {
        return acknowledged.get();
    }

    /** Stops every device (each finishes its exchange under way) and reports. */
    public synchronized Result stop() throws InterruptedException {
        if (!running && stopped != null) {
            return stopped;
        }
        running = false;
        for (Thread thread : threads) {
            thread.join(30_000);
        }
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        long max = sorted.length == 0 ? 0 : sorted[sorted.length - 1];
        long p99 = sorted.length == 0 ? 0
                : sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
        Result result = new Result(sent.get(), acknowledged.get(), max, p99, List.copyOf(errors));
        LOG.info("steady devices ({}): sent {} acknowledged {} ACK p99 {} ms max {} ms errors {}", threads.size(),
                result.sent(), result.acknowledged(), p99, max, result.errors().size());
        stopped = result;
        return result;
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
