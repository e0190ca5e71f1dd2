package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The unauthenticated HTTP endpoints Kubernetes and Prometheus rely on. */
@WithRedis
class HttpEndpointsIT {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private IngestionServer server;

    @BeforeEach
    void startServer(RedisFixture redis) throws Exception {
        server = ItServer.start(redis);
    }

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpAddress().getPort()
                + path)).timeout(Duration.ofSeconds(10)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void live_whenServerRunning_then200() throws Exception {
        HttpResponse<String> response = get("/health/live");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("live");
    }

    @Test
    void ready_whenRedisAnswers_then200() throws Exception {
        assertThat(get("/health/ready").statusCode()).isEqualTo(200);
    }

    @Test
    void metrics_whenRecordsWritten_thenPrometheusTextCountsThemByCodec() throws Exception {
        GoldenVectors.Vector vector = GoldenVectors.all().stream()
                .filter(v -> v.name().equals("codec8-example-3")).findFirst().orElseThrow();
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);
            device.send(vector.bytes());
            assertThat(device.readAck()).isEqualTo(2);
        }

        HttpResponse<String> response = get("/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/plain"));
        assertThat(response.body()).contains("teltonika_records_written_total")
                .containsPattern("(?m)^teltonika_records_written_total\\{codec=\"8\",?} 2\\.0$");
    }

    @Test
    void pipelinedRequests_whenReadyThenLive_thenAnsweredInRequestOrder() throws Exception {
        // HTTP/1.1 lets a client send several requests before reading; answers must keep their order.
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(),
                server.httpAddress().getPort())) {
            socket.setSoTimeout(10_000);
            String requests = "GET /health/ready HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(requests.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();

            String answers = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

            assertThat(answers.indexOf("\"ready\"")).as("ready answered at all").isNotNegative();
            assertThat(answers.indexOf("\"ready\"")).as("ready's answer comes first, as it was asked first")
                    .isLessThan(answers.indexOf("\"live\""));
        }
    }

    @Test
    void unknownPath_whenRequested_then404WithContractErrorJson() throws Exception {
        HttpResponse<String> response = get("/nope");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.body()).contains("\"error\"").contains("\"message\"");
    }

    @Test
    void httpBindAddress_whenSet_thenHttpListensThereAndTheDevicePortsStayOnTheirs(RedisFixture redis)
            throws Exception {
        try (IngestionServer apart = ItServer.start(redis, false, java.util.Map.of("http.bind-address", "127.0.0.2"))) {
            assertThat(apart.httpAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.2");
            assertThat(apart.tcpAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.2:" + apart.httpAddress().getPort()
                    + "/health/live")).timeout(Duration.ofSeconds(10)).build();
            assertThat(http.send(request, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        }
    }
}
