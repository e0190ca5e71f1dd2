package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/**
 * A herd over MAX_ACCEPTS_PER_SECOND on real sockets: the connections wait in the kernel's accept
 * queue, are let in at the cap's pace, and every device logs in.
 */
@WithRedis
class AcceptRateLimitIT {

    private static final int HERD = 20;

    @Test
    void herdOverTheAcceptCap_isLetInAtItsPace_andEveryDeviceLogsIn(RedisFixture redis) throws Exception {
        // 10 a second: one accept a tenth of a second.
        IngestionServer server = ItServer.start(redis, false, Map.of("limits.max-accepts-per-second", 10));
        List<DeviceClient> herd = new ArrayList<>();
        try {
            InetSocketAddress tcp = ItServer.loopback(server.tcpAddress());
            long started = System.nanoTime();
            for (int i = 1; i <= HERD; i++) {
                // The kernel completes the handshake; the login waits until the server accepts.
                DeviceClient device = DeviceClient.connect(tcp);
                herd.add(device);
                device.send(Frames.login(TestImeis.numbered(i)));
            }

            for (DeviceClient device : herd) {
                assertThat(device.readByte()).as("every device of the herd logs in").isEqualTo(1);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            // A lower bound only: a slow machine takes longer, never shorter.
            assertThat(took).as("20 accepts at one a tenth of a second").isGreaterThanOrEqualTo(Duration.ofMillis(1_500));
            assertThat(server.metrics().registry().get("teltonika.accept.pauses").counter().count())
                    .isGreaterThanOrEqualTo(HERD / 2.0);
        } finally {
            for (DeviceClient device : herd) {
                device.close();
            }
            server.close();
        }
    }
}
