package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.redislauncher.LocalRedisServer;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** ACK_REPLICAS: an ACK only once a replica holds the records; none while the replica is gone. */
@WithRedis
class ReplicaAckIT {

    @Test
    void ackReplicas1_acksWithAReplica_refusesWithout_andRecovers(RedisFixture redis) throws Exception {
        try (LocalRedisServer replica = LocalRedisServer.builder()
                .args("--replicaof", "127.0.0.1", Integer.toString(redis.port())).build().start();
             StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            RedisCommands<String, String> primary = connection.sync();
            await().atMost(Duration.ofSeconds(20)).until(() -> primary.info("replication").contains("state=online"));
            try (IngestionServer server = new IngestionServer(SettingsLoader.load(Map.of("redis.url", redis.uri(),
                    "tcp-port", 0, "udp-port", 0, "http-port", 0, "health-port", 0, "bind-address", "127.0.0.1",
                    "telemetry.ack-replicas", 1,
                    // Far above a replica's answer on a quiet machine (about 1 ms), since on a busy CI
                    // machine a 500 ms WAIT ran out with the replica online and closed the connection
                    // instead of an ACK; without a replica each packet waits this long for its refusal.
                    "telemetry.ack-replicas-timeout", "5s"))).start()) {
                RandomAvl random = new RandomAvl(42);
                try (DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort())) {
                    assertThat(device.login(TestImeis.WIKI)).isEqualTo(1);
                    for (int i = 0; i < 20; i++) {
                        assertThat(device.sendAndReadAck(Frames.avl(random.packet(CodecId.CODEC_8, 3)))).isEqualTo(3);
                    }
                }

                replica.stop();
                await().atMost(Duration.ofSeconds(20)).until(() -> primary.info("replication")
                        .contains("connected_slaves:0"));
                try (DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort())) {
                    assertThat(device.login(TestImeis.WIKI)).isEqualTo(1);
                    device.send(Frames.avl(random.packet(CodecId.CODEC_8, 3)));
                    assertThat(device.readUntilClosed()).as("no ACK without a replica").isEmpty();
                }
                assertThat(ready(server)).isEqualTo(503);
                assertThat(server.metrics().registry().get("teltonika.ack.replica.shortfalls").counter().count())
                        .isGreaterThanOrEqualTo(1);

                replica.start();
                await().atMost(Duration.ofSeconds(30)).until(() -> primary.info("replication")
                        .contains("state=online"));
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    try (DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort())) {
                        assertThat(device.login(TestImeis.WIKI)).isEqualTo(1);
                        assertThat(device.sendAndReadAck(Frames.avl(random.packet(CodecId.CODEC_8, 3)))).isEqualTo(3);
                    }
                });
                await().atMost(Duration.ofSeconds(20)).until(() -> ready(server) == 200);
            }
        }
    }

    private static int ready(IngestionServer server) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + server.httpAddress().getPort() + "/health/ready")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
