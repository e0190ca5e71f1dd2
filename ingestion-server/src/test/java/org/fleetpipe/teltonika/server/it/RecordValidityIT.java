package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.Consumer;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.IoElement;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A device on a real socket sends records without a fix and with implausible clocks next to good
 * ones; a consumer group reads {@code valid} = 0 for exactly those (schema 2), on the script path
 * (the first packets after a login) and the MULTI block path alike, and the meters count them.
 */
@WithRedis
class RecordValidityIT {

    private static final int LAT = 546_872_383;
    private static final int LON = 252_800_000;

    private IngestionServer server;
    private TelemetryStream stream;
    private InetSocketAddress tcp;

    @BeforeEach
    void startServer(RedisFixture redis) throws Exception {
        server = ItServer.start(redis, false, Map.of("telemetry.clock-skew-future", "10m"));
        tcp = ItServer.loopback(server.tcpAddress());
        stream = new TelemetryStream(redis);
        stream.redis().xgroupCreate(XReadArgs.StreamOffset.from("telemetry", "0"), "it",
                XGroupCreateArgs.Builder.mkstream());
    }

    @AfterEach
    void stopServer() throws Exception {
        stream.close();
        server.close();
    }

    private static AvlRecord record(long ts, int satellites, int lat, int lon) {
        return new AvlRecord(ts, 0, new GpsElement(lon, lat, (short) 110, 180, satellites, 50), 0,
                AvlRecord.NO_GENERATION, List.of(new IoElement.Fixed(21, 1, 4)));
    }

    /** A packet of five: good, no fix, 50 minutes ahead, stamped in 2009, good again; {@code n} keeps them distinct. */
    private static AvlPacket packet(long now, int n) {
        long base = now - 30_000 + n * 10L;
        return new AvlPacket(CodecId.CODEC_8E, List.of(
                record(base, 9, LAT, LON),
                record(base + 1, 0, 0, 0),
                record(now + Duration.ofMinutes(50).toMillis() + n, 9, LAT, LON),
                record(1_230_768_000_000L + n, 9, LAT, LON),
                record(base + 2, 7, -LAT, -LON)));
    }

    @Test
    void recordsWithoutAFixOrWithAnImplausibleClock_areStoredWithValid0_andCounted() throws Exception {
        List<String> expectedValid = new ArrayList<>();
        try (DeviceClient device = DeviceClient.connect(tcp)) {
            assertThat(device.login(TestImeis.WIKI)).isEqualTo(0x01);
            for (int n = 0; n < 3; n++) {
                if (n == 2) {
                    // The third packet takes a MULTI block, on the event loop's own connection.
                    await().atMost(Duration.ofSeconds(20)).until(() -> ServerMeters.gauge(server,
                            "teltonika.telemetry.pipes.ready") > 0);
                }
                device.send(Frames.avl(packet(System.currentTimeMillis(), n)));
                assertThat(device.readAck()).isEqualTo(5);
                expectedValid.addAll(List.of("1", "0", "0", "0", "1"));
            }
        }

        List<Map<String, String>> read = readAsAConsumer(15);
        assertThat(read).extracting(e -> e.get("valid")).containsExactlyElementsOf(expectedValid);
        assertThat(read).allSatisfy(e -> assertThat(e).containsEntry("schema", "2"));
        assertThat(server.metrics().registry().find("teltonika.telemetry.packets.written").tag("path", "block")
                .functionCounter().count()).as("the block path was taken").isPositive();

        for (String reason : List.of("no-fix", "clock-future", "clock-past")) {
            assertThat(server.metrics().registry().get("teltonika.records.invalid").tag("reason", reason)
                    .functionCounter().count()).as(reason).isEqualTo(3);
        }
        String scrape = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + server.httpAddress().getPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertThat(scrape).containsPattern("(?m)^teltonika_records_invalid_total\\{reason=\"clock-future\"} 3\\.0$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"ahead\",le=\"1800\\.0\"} 0$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"ahead\",le=\"3600\\.0\"} 3$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_count\\{direction=\"ahead\"} 3$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_count\\{direction=\"behind\"} 12$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"behind\",le=\"15\\.0\"} 0$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"behind\",le=\"60\\.0\"} 9$")
                .containsPattern("(?m)^teltonika_record_clock_skew_seconds_bucket\\{direction=\"behind\",le=\"3\\.1536E7\"} 9$");
    }

    /** As a consumer does: XREADGROUP and XACK, until {@code count} entries came. */
    private List<Map<String, String>> readAsAConsumer(int count) {
        List<Map<String, String>> read = new ArrayList<>();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            List<StreamMessage<String, String>> batch = stream.redis().xreadgroup(Consumer.from("it", "c1"),
                    XReadArgs.Builder.count(100).block(200), XReadArgs.StreamOffset.lastConsumed("telemetry"));
            for (StreamMessage<String, String> m : batch) {
                read.add(new LinkedHashMap<>(m.getBody()));
                stream.redis().xack("telemetry", "it", m.getId());
            }
            return read.size() >= count;
        });
        assertThat(read).hasSize(count);
        return read;
    }
}
