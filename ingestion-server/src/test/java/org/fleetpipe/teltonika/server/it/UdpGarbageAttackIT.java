package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.ScoredValue;
import io.micrometer.core.instrument.Counter;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.SteadyDevices;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Undecodable datagrams from many (spoofed) source addresses against a real server on loopback,
 * each source a different 127.0.x.y: only a rate-limited sample becomes a Redis call, each stored
 * as a short prefix, while steady UDP and TCP devices keep their ACKs.
 */
@WithRedis
class UdpGarbageAttackIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(UdpGarbageAttackIT.class);
    private static final int PER_SECOND = 5;
    private static final int PER_ADDRESS_PER_MINUTE = 3;
    private static final int PREFIX_BYTES = 64;

    private final List<DatagramSocket> sources = new ArrayList<>();
    private final Random random = new Random(19);
    private IngestionServer server;
    private TelemetryStream redisView;
    private InetSocketAddress udp;
    private SteadyDevices steadyUdp;
    private SteadyDevices steadyTcp;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, true, Map.of("dead-letters.max-per-second", PER_SECOND,
                "dead-letters.max-per-address-per-minute", PER_ADDRESS_PER_MINUTE,
                "dead-letters.max-unauthenticated-frame-bytes", PREFIX_BYTES));
        redisView = new TelemetryStream(redis);
        udp = ItServer.loopback(server.udpAddress());
        steadyUdp = SteadyDevices.udp(udp, LongStream.rangeClosed(1, 3).mapToObj(TestImeis::numbered).toList(),
                Duration.ofMillis(50));
        steadyTcp = SteadyDevices.tcp(ItServer.loopback(server.tcpAddress()),
                LongStream.rangeClosed(4, 6).mapToObj(TestImeis::numbered).toList(), Duration.ofMillis(50));
    }

    @AfterEach
    void stop() throws Exception {
        steadyUdp.close();
        steadyTcp.close();
        for (DatagramSocket s : sources) {
            s.close();
        }
        redisView.close();
        server.close();
    }

    private DatagramSocket source(String address) throws Exception {
        DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName(address));
        sources.add(socket);
        return socket;
    }

    private byte[] garbage(int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        // A declared length that does not match: never a valid datagram.
        bytes[0] = (byte) 0xFF;
        return bytes;
    }

    private double rejected() {
        return server.metrics().registry().find("teltonika.frames.rejected").counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private double dropped(String reason) {
        return ServerMeters.count(server, "teltonika.dead.letters.dropped", "reason", reason);
    }

    /** Waits until every refused datagram the server read is either stored or counted as dropped. */
    private long awaitAllAccountedFor() {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                redisView.redis().zcard("dlq:frames") + dropped("rate") + dropped("address-rate"))
                .isEqualTo((long) rejected()));
        return redisView.redis().zcard("dlq:frames");
    }

    @Test
    void garbageFromManySpoofedSources_thenARateLimitedSampleStoredAsShortPrefixes() throws Exception {
        List<DatagramSocket> spoofed = new ArrayList<>();
        for (int host = 1; host <= 40; host++) {
            spoofed.add(source("127.0.1." + host));
        }
        long start = System.nanoTime();
        int sent = 0;
        // About 40,000 datagrams a second at most: the point is what each one costs behind the socket.
        for (int round = 0; round < 500; round++) {
            for (DatagramSocket s : spoofed) {
                byte[] g = garbage(round % 50 == 0 ? 4_000 : 40);
                s.send(new DatagramPacket(g, g.length, udp));
                sent++;
            }
            if (round % 5 == 4) {
                Thread.sleep(5);
            }
        }
        long stored = awaitAllAccountedFor();
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start) + 1;

        LOG.info("spoofed garbage: sent {}, read and refused {}, stored {} within {} s, dropped rate {} "
                + "address-rate {}", sent, (long) rejected(), stored, seconds, (long) dropped("rate"),
                (long) dropped("address-rate"));
        assertThat(sent).isEqualTo(20_000);
        assertThat(rejected()).as("the kernel may drop some; most arrive").isGreaterThan(1_000);
        assertThat(stored).as("stored within %d s", seconds).isPositive()
                .isLessThanOrEqualTo(PER_SECOND + PER_SECOND * seconds);
        assertThat(dropped("rate")).as("the instance's rate bound them").isPositive();
        for (ScoredValue<String> letter : redisView.frameDeadLetters()) {
            JsonNode json = JSON.readTree(letter.getValue());
            assertThat(json.get("hex").asText().length()).isLessThanOrEqualTo(2 * PREFIX_BYTES);
        }
        steadyUdp.assertServed(10);
        steadyTcp.assertServed(10);
    }

    @Test
    void garbageFromOneSource_thenOnlyItsPerMinuteShareStored() throws Exception {
        DatagramSocket noisy = source("127.0.2.1");
        for (int i = 0; i < 200; i++) {
            byte[] g = garbage(40);
            noisy.send(new DatagramPacket(g, g.length, udp));
        }

        long stored = awaitAllAccountedFor();

        assertThat(stored).isEqualTo(PER_ADDRESS_PER_MINUTE);
        assertThat(dropped("address-rate")).isEqualTo(rejected() - PER_ADDRESS_PER_MINUTE);
        assertThat(dropped("rate")).isZero();
        // Another source still has its share: one noisy source cannot silence the evidence of others.
        DatagramSocket other = source("127.0.2.2");
        byte[] g = garbage(40);
        other.send(new DatagramPacket(g, g.length, udp));
        await().atMost(Duration.ofSeconds(10)).until(() -> redisView.redis().zcard("dlq:frames")
                == PER_ADDRESS_PER_MINUTE + 1);
        steadyUdp.assertServed(10);
        steadyTcp.assertServed(10);
    }
}
