package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** A clean stop closes its devices spread over the drain window, within the grace, and releases them all. */
@WithRedis
class DrainWindowIT {

    @Test
    void stop_closesDevicesSpreadOverTheWindow_withinTheGrace(RedisFixture redis) throws Exception {
        IngestionServer server = new IngestionServer(SettingsLoader.load(Map.of("redis.url", redis.uri(),
                "tcp-port", 0, "udp-port", 0, "http-port", 0, "health-port", 0, "bind-address", "127.0.0.1",
                "shutdown.drain-window", "2s", "shutdown.grace", "10s"))).start();
        List<DeviceClient> devices = new ArrayList<>();
        List<CompletableFuture<Long>> closedAt = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort());
            assertThat(device.login(TestImeis.numbered(i))).isEqualTo(1);
            devices.add(device);
            closedAt.add(CompletableFuture.supplyAsync(() -> {
                try {
                    device.readUntilClosed();
                } catch (java.io.IOException e) {
                    // a reset is a close too
                }
                return System.nanoTime();
            }));
        }
        long stopAt = System.nanoTime();

        server.close();

        long stoppedAt = System.nanoTime();
        List<Long> times = new ArrayList<>();
        for (CompletableFuture<Long> f : closedAt) {
            times.add(f.get(15, TimeUnit.SECONDS));
        }
        long first = times.stream().mapToLong(Long::longValue).min().orElseThrow();
        long last = times.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(TimeUnit.NANOSECONDS.toMillis(last - first)).as("closes spread over the window")
                .isBetween(1200L, 4000L);
        assertThat(TimeUnit.NANOSECONDS.toMillis(stoppedAt - stopAt)).as("within the grace").isLessThan(10_000L);
        try (var connection = redis.client().connect()) {
            assertThat(connection.sync().hlen("connections:registry")).as("every entry released").isZero();
        }
        for (DeviceClient d : devices) {
            d.close();
        }
    }
}
