package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * MODEL_FROM_GETVER over a real device socket: the device's answer to {@code getver} stores its
 * model in {@code devices:models} (namespaced); other commands' replies, and getver with the
 * setting off, store nothing.
 */
@WithRedis
class ModelFromGetverIT {

    private static final String TOKEN = "getver-operator-token-0123456789abcdef01";
    private static final String GETVER_REPLY = "Ver:03.27.07_00 GPS:AXN_5.10_3333 Hw:FMB920 Mod:15 "
            + "IMEI:352093081452251 Init:2019-11-1 10:12 Uptime:17299 MAC:001E4254C1B5";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private IngestionServer server;
    private StatefulRedisConnection<String, String> connection;

    @AfterEach
    void stop() throws Exception {
        if (connection != null) {
            connection.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private RedisCommands<String, String> start(RedisFixture fixture, boolean fromGetver) throws Exception {
        server = ItServer.start(fixture, false, Map.of("api-token", TOKEN, "redis.namespace", "fleet-m:",
                "commands.model-from-getver", fromGetver));
        connection = fixture.client().connect();
        return connection.sync();
    }

    /** Sends {@code command} to the logged-in {@code device}, which answers {@code reply}; waits for the reply. */
    private void command(DeviceClient device, String imei, String command, String reply) throws Exception {
        CompletableFuture<Void> answered = CompletableFuture.runAsync(() -> {
            try {
                device.readFrame();
                device.send(Frames.command(CommandFrame.codec12Response(reply)));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + server.httpAddress().getPort() + "/api/v1/devices/" + imei + "/commands"))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString("{\"command\":\"" + command + "\",\"wait_ms\":20000}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        answered.join();
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.body()).contains("\"status\":\"replied\"");
    }

    @Test
    void getverReply_storesTheModel_otherRepliesDoNot(RedisFixture fixture) throws Exception {
        RedisCommands<String, String> redis = start(fixture, true);
        String imei = TestImeis.numbered(21);
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(imei)).isEqualTo(1);

            command(device, imei, "getinfo", "RTC:2024/1/1 Hw:FMC650 (not a getver reply)");
            command(device, imei, "getver", GETVER_REPLY);

            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(redis.hget("fleet-m:devices:models", imei)).isEqualTo("FMB920"));
            assertThat(redis.exists("devices:models")).as("the namespace applies").isZero();

            command(device, imei, "getver", "Ver:03.27.07_00 HW:FMB9X0 Mod:15");
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(redis.hget("fleet-m:devices:models", imei)).isEqualTo("FMB9X0"));
        }
    }

    @Test
    void settingOff_getverReplyStoresNothing(RedisFixture fixture) throws Exception {
        RedisCommands<String, String> redis = start(fixture, false);
        String imei = TestImeis.numbered(22);
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(imei)).isEqualTo(1);

            command(device, imei, "getver", GETVER_REPLY);
            // The reply was stored (status replied) before the answer; a model write would have
            // been issued at the same time, on the same connection, so a later command is after it.
            command(device, imei, "getinfo", "ok");
        }
        assertThat(redis.hexists("fleet-m:devices:models", imei)).isFalse();
    }
}
