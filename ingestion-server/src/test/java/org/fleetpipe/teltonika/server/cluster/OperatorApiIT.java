package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.junit.jupiter.api.Test;

/** The token-protected registry API over real HTTP, against a real Redis. */
@WithRedis
class OperatorApiIT {

    private static final String TOKEN = "s3cret-token-0123456789abcdef0123456789abcdef";
    private static final String IMEI = "352093081452251";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private IngestionServer server;

    @BeforeEach
    void start(RedisFixture redis) throws Exception {
        server = new IngestionServer(SettingsLoader.load(Map.of("redis.url", redis.uri(), "tcp-port", 0,
                "udp-port", 0, "http-port", 0, "health-port", 0, "bind-address", "127.0.0.1", "api-token", TOKEN,
                "instance-id-prefix", "api", "heartbeat.interval", "300ms", "heartbeat.ttl", "5s"))).start();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + server.httpAddress().getPort() + path)).timeout(Duration.ofSeconds(10));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void api_withoutOrWithAWrongToken_is401WithTheContractErrorShape() throws Exception {
        for (String token : new String[] {null, "wrong", TOKEN + "x"}) {
            HttpResponse<String> response = get("/api/v1/instances", token);
            assertThat(response.statusCode()).isEqualTo(401);
            assertThat(json.readTree(response.body()).get("error").asText()).isEqualTo("unauthorized");
        }
        assertThat(get("/health/live", null).statusCode()).as("health needs no token").isEqualTo(200);
    }

    @Test
    void instances_listsThisLiveInstance_withItsHeartbeatFieldsAndDeviceCount() throws Exception {
        try (DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort())) {
            assertThat(device.login(IMEI)).isEqualTo(1);
            // The device count is refreshed with the next renewal.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
                JsonNode instances = json.readTree(get("/api/v1/instances", TOKEN).body()).get("instances");
                return instances.size() == 1 && instances.get(0).get("devices").asText().equals("1");
            });
        }
        JsonNode instance = json.readTree(get("/api/v1/instances", TOKEN).body()).get("instances").get(0);
        assertThat(instance.get("id").asText()).isEqualTo(server.instanceId());
        assertThat(instance.get("tcp").asInt()).isEqualTo(server.tcpAddress().getPort());
        assertThat(instance.get("http").asInt()).isEqualTo(server.httpAddress().getPort());
        for (String field : new String[] {"host", "pid", "started", "renewed", "version"}) {
            assertThat(instance.has(field)).as(field).isTrue();
        }
    }

    @Test
    void device_whenConnected_saysWhereAndSince_andItsLastRecord() throws Exception {
        long before = System.currentTimeMillis();
        try (DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort())) {
            assertThat(device.login(IMEI)).isEqualTo(1);
            assertThat(device.sendAndReadAck(GoldenVectors.ofKind("avl").get(0).bytes())).isEqualTo(1);

            HttpResponse<String> response = get("/api/v1/devices/" + IMEI, TOKEN);

            assertThat(response.statusCode()).isEqualTo(200);
            JsonNode body = json.readTree(response.body());
            assertThat(body.get("imei").asText()).isEqualTo(IMEI);
            assertThat(body.get("instance").asText()).isEqualTo(server.instanceId());
            assertThat(body.get("connected_since").asLong()).isBetween(before, System.currentTimeMillis());
            assertThat(body.get("remote").asText()).contains("127.0.0.1");
            assertThat(body.get("last_record_at").asLong()).isEqualTo(1560161086000L);
        }
    }

    @Test
    void device_whenNotConnected_is404_andMalformedImei_is400() throws Exception {
        HttpResponse<String> missing = get("/api/v1/devices/" + IMEI, TOKEN);
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(json.readTree(missing.body()).has("message")).isTrue();

        HttpResponse<String> malformed = get("/api/v1/devices/12345", TOKEN);
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(json.readTree(malformed.body()).get("error").asText()).isEqualTo("bad-imei");
    }
}
