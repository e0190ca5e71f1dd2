package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 45: the device path's warm-up runs the real pipeline before the listeners open, and leaves
 * no trace: no key in Redis names one of its devices, the stream holds nothing, the registry
 * nothing, and the server's own metrics count no login, connection, frame or record.
 */
@WithRedis
class WarmUpIT {

    /** The warm-up's IMEIs (SyntheticTraffic): a made-up TAC. */
    private static final String WARM_UP_IMEIS = "35209300";

    private IngestionServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void warmUpBeforeTheListenersOpen_writesNothingToRedis_countsNothing_andRealDevicesThenWork(RedisFixture redis)
            throws Exception {
        server = ItServer.start(redis, false, Map.of("warm-up.packets", 5_000, "warm-up.max-time", "60s"));

        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            RedisCommands<String, String> r = connection.sync();
            List<String> keys = r.keys("*");
            assertThat(keys).as("no key names a warm-up device").noneMatch(k -> k.contains(WARM_UP_IMEIS));
            assertThat(r.exists("telemetry")).as("no stream entry").isZero();
            assertThat(r.hkeys("connections:registry")).as("no registry entry").isEmpty();

            MeterRegistry meters = server.metrics().registry();
            assertThat(sum(meters, "teltonika.logins")).as("logins counted").isZero();
            assertThat(sum(meters, "teltonika.connections.opened")).as("connections counted").isZero();
            assertThat(sum(meters, "teltonika.frames.received")).as("frames counted").isZero();
            assertThat(sum(meters, "teltonika.records.written")).as("records counted").isZero();

            String imei = TestImeis.numbered(1);
            try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
                assertThat(device.login(imei)).isEqualTo(1);
                assertThat(device.sendAndReadAck(Frames.avl(new RandomAvl(45L).packet(CodecId.CODEC_8, 3))))
                        .isEqualTo(3);
            }
            assertThat(r.xlen("telemetry")).as("a real device's records are stored as ever").isEqualTo(3);
            assertThat(sum(meters, "teltonika.logins")).isEqualTo(1);
        }
    }

    private static double sum(MeterRegistry meters, String name) {
        return meters.find(name).counters().stream().mapToDouble(Counter::count).sum();
    }
}
