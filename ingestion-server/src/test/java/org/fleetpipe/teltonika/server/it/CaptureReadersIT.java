package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 43 item 4, on real sockets and a real Redis: 64 readers GET an 8 MiB capture and never
 * read the answers, while devices log in and get their ACKs and the probes answer, each within
 * 1 s, and the server's direct memory stays under its cap; capture pages are cut at about 1 MiB.
 */
@WithRedis
class CaptureReadersIT {

    private static final String TOKEN = "capture-readers-it-0123456789abcdef0123456789";
    private static final int READERS = 64;
    private static final int ENTRIES = 1024;
    /** 8 KiB of hex an entry: 8 MiB in all. */
    private static final String HEX = "0f".repeat(4096);
    /** The base manifest's -XX:MaxDirectMemorySize, which the pod reached. */
    private static final long POD_DIRECT_CAP = 128L * 1024 * 1024;

    private final List<Socket> readers = new ArrayList<>();
    private final ObjectMapper json = new ObjectMapper();
    private IngestionServer server;

    @AfterEach
    void stop() throws Exception {
        for (Socket s : readers) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static void seed(RedisFixture redis, String imei) {
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            RedisAsyncCommands<String, String> async = connection.async();
            List<RedisFuture<String>> added = new ArrayList<>();
            for (int i = 0; i < ENTRIES; i++) {
                added.add(async.xadd("capture:" + imei, Map.of("at", Long.toString(System.currentTimeMillis()),
                        "dir", "in", "hex", HEX, "outcome", "received codec 8")));
            }
            added.forEach(f -> f.toCompletableFuture().join());
        }
    }

    /** JDK direct buffers, plus Netty's own counter when it keeps one. */
    private static long directBytes() {
        long used = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                used += pool.getMemoryUsed();
            }
        }
        return used + Math.max(0, PlatformDependent.usedDirectMemory());
    }

    private static String exchange(InetSocketAddress to, String request) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), to.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String get(String path, String token) {
        return "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + (token == null ? "" : "Authorization: Bearer " + token
                + "\r\n") + "Connection: close\r\n\r\n";
    }

    private static byte[] avl() {
        return GoldenVectors.all().stream().filter(v -> v.name().equals("codec8-example-3")).findFirst().orElseThrow()
                .bytes();
    }

    @Test
    void unreadCaptureReads_leaveLoginsAcksAndProbesWithinOneSecond_andDirectMemoryUnderItsCap(RedisFixture redis)
            throws Exception {
        long answerCap = 16L * 1024 * 1024;
        server = ItServer.start(redis, false, Map.of("api-token", TOKEN, "http.max-connections", READERS + 8,
                "http.max-connections-per-address", 0, "http.answer-bytes-max", answerCap));
        String imei = TestImeis.numbered(4301);
        seed(redis, imei);
        InetSocketAddress api = ItServer.loopback(server.httpAddress());
        InetSocketAddress health = ItServer.loopback(server.healthAddress());
        long baseline = directBytes();
        AtomicLong peak = new AtomicLong(baseline);
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleAtFixedRate(() -> peak.accumulateAndGet(directBytes(), Math::max), 0, 5,
                TimeUnit.MILLISECONDS);
        try {
            byte[] request = get("/api/v1/devices/" + imei + "/capture?limit=1000", TOKEN)
                    .getBytes(StandardCharsets.ISO_8859_1);
            for (int i = 0; i < READERS; i++) {
                Socket reader = new Socket();
                // A small window: what the kernel takes for a reader that never reads stays small.
                reader.setReceiveBufferSize(4096);
                reader.connect(api, 5_000);
                readers.add(reader);
                reader.getOutputStream().write(request);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> ServerMeters.gauge(server,
                    "teltonika.http.connections.active") >= READERS);

            byte[] avl = avl();
            for (int round = 0; round < 5; round++) {
                long started = System.nanoTime();
                try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
                    assertThat(device.login(TestImeis.numbered(4310 + round))).isEqualTo(1);
                    long login = (System.nanoTime() - started) / 1_000_000;
                    long sent = System.nanoTime();
                    assertThat(device.sendAndReadAck(avl)).isEqualTo(2);
                    long ack = (System.nanoTime() - sent) / 1_000_000;
                    assertThat(login).as("login, round %d", round).isLessThan(1_000);
                    assertThat(ack).as("ACK, round %d", round).isLessThan(1_000);
                }
                started = System.nanoTime();
                assertThat(exchange(health, get("/health/live", null))).startsWith("HTTP/1.1 200");
                long live = (System.nanoTime() - started) / 1_000_000;
                started = System.nanoTime();
                assertThat(exchange(health, get("/health/ready", null))).startsWith("HTTP/1.1 200");
                long ready = (System.nanoTime() - started) / 1_000_000;
                assertThat(live).as("/health/live, round %d", round).isLessThan(1_000);
                assertThat(ready).as("/health/ready, round %d", round).isLessThan(1_000);
            }
        } finally {
            sampler.shutdownNow();
        }
        assertThat(ServerMeters.gauge(server, "teltonika.http.answer.bytes")).as("held answers under the cap")
                .isLessThanOrEqualTo(answerCap);
        // The answers in flight, plus room for the allocator's chunks and the Redis clients' buffers.
        assertThat(peak.get()).as("direct memory (baseline %d)", baseline)
                .isLessThan(Math.min(POD_DIRECT_CAP, baseline + answerCap + 32L * 1024 * 1024));

        // A page is cut at about 1 MiB, and the next picks up after its last entry.
        for (Socket s : readers) {
            s.close();
        }
        readers.clear();
        // The server learns of the closes on its event loops; until then the pages held for them still
        // count against the cap, and a new read is told to retry (503 answers-pending), as it should be.
        await().atMost(Duration.ofSeconds(10)).until(() -> ServerMeters.gauge(server, "teltonika.http.answer.bytes")
                == 0);
        JsonNode page = json.readTree(body(exchange(api, get("/api/v1/devices/" + imei + "/capture?limit=1000",
                TOKEN))));
        int first = page.path("entries").size();
        assertThat(first).isBetween(100, 128);
        assertThat(page.path("more").asBoolean()).isTrue();
        JsonNode next = json.readTree(body(exchange(api, get("/api/v1/devices/" + imei + "/capture?limit=1000&after="
                + page.path("entries").get(first - 1).path("id").asText(), TOKEN))));
        assertThat(next.path("entries").size()).isEqualTo(first);
        await().atMost(Duration.ofSeconds(10)).until(() -> ServerMeters.gauge(server, "teltonika.http.answer.bytes")
                == 0);
    }

    private static String body(String answer) {
        assertThat(answer).startsWith("HTTP/1.1 200");
        return answer.substring(answer.indexOf("\r\n\r\n") + 4);
    }
}
