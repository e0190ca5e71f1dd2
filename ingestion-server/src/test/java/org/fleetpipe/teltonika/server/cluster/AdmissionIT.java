package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Device admission and per-address caps, against real sockets and a real Redis. */
@WithRedis
class AdmissionIT {

    private static final String TOKEN = "adm-0123456789abcdef0123456789abcdef";
    private static final String IMEI = "352093081452251";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final List<IngestionServer> servers = new ArrayList<>();
    private final List<DeviceClient> devices = new ArrayList<>();
    private RedisFixture redis;

    @BeforeEach
    void remember(RedisFixture redis) {
        this.redis = redis;
    }

    @AfterEach
    void tearDown() throws Exception {
        for (DeviceClient d : devices) {
            d.close();
        }
        for (IngestionServer s : servers) {
            s.close();
        }
    }

    private IngestionServer server(Map<String, Object> extra) throws InterruptedException {
        Map<String, Object> settings = new HashMap<>(Map.of("redis.url", redis.uri(), "tcp-port", 0, "udp-port", 0,
                "http-port", 0, "health-port", 0, "bind-address", "127.0.0.1", "api-token", TOKEN));
        settings.putAll(extra);
        IngestionServer server = new IngestionServer(SettingsLoader.load(settings)).start();
        servers.add(server);
        return server;
    }

    private int login(IngestionServer server, String imei) throws Exception {
        DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort());
        devices.add(device);
        return device.login(imei);
    }

    private JsonNode api(IngestionServer server, String method, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpAddress().getPort()
                        + path)).header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s %s: %s", method, path, response.body()).isEqualTo(200);
        return json.readTree(response.body());
    }

    @Test
    void openMode_admitsAnyWellFormedImei_butNeverADeniedOne() throws Exception {
        IngestionServer a = server(Map.of());
        assertThat(login(a, IMEI)).isEqualTo(1);

        api(a, "PUT", "/api/v1/admission/denied/" + TestImeis.OTHER, null);

        assertThat(login(a, TestImeis.OTHER)).isZero();
        assertThat(devices.get(devices.size() - 1).readUntilClosed()).isEmpty();
        assertThat(api(a, "GET", "/api/v1/admission", null).get("mode").asText()).isEqualTo("open");
    }

    @Test
    void allowList_refusesUnlisted_andAdmitsOnceListed_withoutARestart() throws Exception {
        IngestionServer a = server(Map.of("admission.mode", "allow-list"));
        assertThat(login(a, IMEI)).isZero();

        api(a, "PUT", "/api/v1/admission/allowed/" + IMEI, null);
        assertThat(login(a, IMEI)).isEqualTo(1);

        api(a, "DELETE", "/api/v1/admission/allowed/" + IMEI, null);
        assertThat(login(a, IMEI)).isZero();
        // The Prometheus text is made at most once a second.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(http.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + a.httpAddress().getPort() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body()).containsPattern(
                "(?m)^teltonika_logins_total\\{reason=\"not-allowed\",result=\"refused\"} 2\\.0$"));
    }

    @Test
    void bulkChanges_thousandsAtOnce_andTheSizesAreReported() throws Exception {
        IngestionServer a = server(Map.of());
        StringBuilder add = new StringBuilder("{\"add\":[");
        for (int i = 0; i < 3000; i++) {
            add.append(i == 0 ? "" : ",").append('"').append(TestImeis.numbered(i)).append('"');
        }
        add.append("]}");

        JsonNode added = api(a, "POST", "/api/v1/admission/allowed", add.toString());
        JsonNode removed = api(a, "POST", "/api/v1/admission/allowed", "{\"remove\":[\"" + TestImeis.numbered(0)
                + "\",\"" + TestImeis.numbered(1) + "\"]}");

        assertThat(added.get("added").asLong()).isEqualTo(3000);
        assertThat(removed.get("removed").asLong()).isEqualTo(2);
        JsonNode sizes = api(a, "GET", "/api/v1/admission", null);
        assertThat(sizes.get("allowed").asLong()).isEqualTo(2998);
        assertThat(sizes.get("denied").asLong()).isZero();
    }

    @Test
    void denyingAConnectedDevice_onTheOtherReplica_cutsItOffWithinSeconds() throws Exception {
        IngestionServer a = server(Map.of());
        IngestionServer b = server(Map.of());
        assertThat(login(a, IMEI)).isEqualTo(1);
        DeviceClient onA = devices.get(0);

        api(b, "PUT", "/api/v1/admission/denied/" + IMEI, null);

        await().atMost(Duration.ofSeconds(5)).until(onA::closedByServer);
        assertThat(login(b, IMEI)).isZero();
    }

    @Test
    void aDenyWhoseMessageWasLost_isFoundByThePeriodicCheck() throws Exception {
        IngestionServer a = server(Map.of("admission.deny-sweep-interval", "300ms"));
        assertThat(login(a, IMEI)).isEqualTo(1);
        assertThat(login(a, TestImeis.OTHER)).isEqualTo(1);
        DeviceClient denied = devices.get(0);
        DeviceClient other = devices.get(1);

        // Straight into the set: no 'deny' message, as if this instance's pub/sub connection missed it.
        try (var connection = redis.client().connect()) {
            connection.sync().sadd("devices:denied", IMEI);
        }

        await().atMost(Duration.ofSeconds(10)).until(denied::closedByServer);
        assertThat(other.closedByServer()).isFalse();
    }

    @Test
    void removingAConnectedDeviceFromTheAllowList_onTheOtherReplica_cutsItOffWithinSeconds() throws Exception {
        IngestionServer a = server(Map.of("admission.mode", "allow-list"));
        IngestionServer b = server(Map.of("admission.mode", "allow-list"));
        api(b, "POST", "/api/v1/admission/allowed", "{\"add\":[\"" + IMEI + "\",\"" + TestImeis.OTHER + "\"]}");
        assertThat(login(a, IMEI)).isEqualTo(1);
        assertThat(login(a, TestImeis.OTHER)).isEqualTo(1);
        DeviceClient removed = devices.get(0);
        DeviceClient kept = devices.get(1);

        api(b, "DELETE", "/api/v1/admission/allowed/" + IMEI, null);

        await().atMost(Duration.ofSeconds(5)).until(removed::closedByServer);
        assertThat(kept.closedByServer()).isFalse();
        assertThat(login(b, IMEI)).isZero();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(metrics(a)).containsPattern(
                "(?m)^teltonika_connections_closed_total\\{reason=\"not-allowed\"} 1\\.0$"));
    }

    @Test
    void anAllowListRemovalMadeInRedisDirectly_isFoundByThePeriodicCheck() throws Exception {
        IngestionServer a = server(Map.of("admission.mode", "allow-list", "admission.deny-sweep-interval", "300ms"));
        api(a, "POST", "/api/v1/admission/allowed", "{\"add\":[\"" + IMEI + "\",\"" + TestImeis.OTHER + "\"]}");
        assertThat(login(a, IMEI)).isEqualTo(1);
        assertThat(login(a, TestImeis.OTHER)).isEqualTo(1);
        DeviceClient removed = devices.get(0);
        DeviceClient kept = devices.get(1);

        // Straight out of the set: no 'revoke' message.
        try (var connection = redis.client().connect()) {
            connection.sync().srem("devices:allowed", IMEI);
        }

        await().atMost(Duration.ofSeconds(10)).until(removed::closedByServer);
        assertThat(kept.closedByServer()).isFalse();
    }

    @Test
    void inOpenMode_removingFromTheAllowList_leavesTheDeviceConnected() throws Exception {
        IngestionServer a = server(Map.of());
        api(a, "PUT", "/api/v1/admission/allowed/" + IMEI, null);
        assertThat(login(a, IMEI)).isEqualTo(1);
        assertThat(login(a, TestImeis.OTHER)).isEqualTo(1);
        DeviceClient unlisted = devices.get(0);
        DeviceClient denied = devices.get(1);

        api(a, "DELETE", "/api/v1/admission/allowed/" + IMEI, null);
        // Published after the 'revoke' on the same channel and checked on the same Redis connection:
        // once the denied device is cut off, the 'revoke' was handled too.
        api(a, "PUT", "/api/v1/admission/denied/" + TestImeis.OTHER, null);

        await().atMost(Duration.ofSeconds(5)).until(denied::closedByServer);
        assertThat(unlisted.closedByServer(500)).isFalse();
    }

    private String metrics(IngestionServer server) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpAddress().getPort()
                + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void udpDatagramOfADeniedImei_isNotAckedNorStored() throws Exception {
        // any: the allowed datagram's IMEI never logged in over TCP (tcp-known is UdpIntakeAttackIT's).
        IngestionServer a = server(Map.of("udp-port", freeUdpPort(), "admission.udp", "any"));
        api(a, "PUT", "/api/v1/admission/denied/" + TestImeis.OTHER, null);
        try (java.net.DatagramSocket socket = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            socket.setSoTimeout(1500);
            byte[] denied = org.fleetpipe.teltonika.server.testing.Frames.udp(new org.fleetpipe.teltonika.codec.udp.UdpPacket(
                    1, 1, TestImeis.OTHER, new org.fleetpipe.teltonika.codec.testing.RandomAvl(1)
                    .packet(org.fleetpipe.teltonika.codec.CodecId.CODEC_8, 2)));
            socket.send(new java.net.DatagramPacket(denied, denied.length, new java.net.InetSocketAddress("127.0.0.1",
                    a.udpAddress().getPort())));
            byte[] buffer = new byte[16];
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> socket.receive(new java.net.DatagramPacket(buffer,
                    buffer.length))).isInstanceOf(java.net.SocketTimeoutException.class);
            byte[] allowed = org.fleetpipe.teltonika.server.testing.Frames.udp(new org.fleetpipe.teltonika.codec.udp.UdpPacket(
                    2, 2, IMEI, new org.fleetpipe.teltonika.codec.testing.RandomAvl(2)
                    .packet(org.fleetpipe.teltonika.codec.CodecId.CODEC_8, 2)));
            socket.setSoTimeout(10_000);
            socket.send(new java.net.DatagramPacket(allowed, allowed.length, new java.net.InetSocketAddress("127.0.0.1",
                    a.udpAddress().getPort())));
            socket.receive(new java.net.DatagramPacket(buffer, buffer.length));
        }
        try (var connection = redis.client().connect()) {
            assertThat(connection.sync().xlen("telemetry")).as("only the allowed device's records").isEqualTo(2);
        }
    }

    private static int freeUdpPort() throws java.io.IOException {
        try (java.net.DatagramSocket s = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void perAddressCaps_refuseTheConnectionOverTheCap() throws Exception {
        IngestionServer a = server(Map.of("limits.max-connections-per-address", 2));
        assertThat(login(a, TestImeis.numbered(1))).isEqualTo(1);
        assertThat(login(a, TestImeis.numbered(2))).isEqualTo(1);

        DeviceClient third = DeviceClient.connect(a.tcpAddress().getPort());
        devices.add(third);
        assertThat(third.readUntilClosed()).as("closed before it could log in").isEmpty();

        devices.get(0).close();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(login(a, TestImeis.numbered(3)))
                .isEqualTo(1));
    }

    @Test
    void perAddressRate_refusesTheNewConnectionOverTheRate() throws Exception {
        IngestionServer a = server(Map.of("limits.max-new-connections-per-address-per-second", 3));
        int closed = 0;
        for (int i = 0; i < 10; i++) {
            DeviceClient device = DeviceClient.connect(a.tcpAddress().getPort());
            devices.add(device);
            try {
                if (device.login(TestImeis.numbered(i)) < 0) {
                    closed++;
                }
            } catch (java.io.IOException reset) {
                // The server closed it before the login was even written: refused too.
                closed++;
            }
        }
        // Ten connections within a second or two: at most three per second get through.
        assertThat(closed).isGreaterThanOrEqualTo(4);
    }
}
