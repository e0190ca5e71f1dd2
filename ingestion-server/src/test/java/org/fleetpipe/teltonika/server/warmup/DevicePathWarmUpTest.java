package org.fleetpipe.teltonika.server.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.junit.jupiter.api.Test;

class DevicePathWarmUpTest {

    @Test
    void everySyntheticPacketIsAcknowledgedByThePipeline_devicesOf50PacketsEach() {
        DevicePathWarmUp.Result r = new DevicePathWarmUp(SettingsLoader.load(Map.of("warm-up.packets", 3000,
                "warm-up.max-time", "60s"))).run();

        assertThat(r.packets()).as("every packet acknowledged (4-byte ACK)").isEqualTo(3000);
        assertThat(r.devices()).as("logins and disconnects warmed too").isEqualTo(60);
        // The 12 packet kinds in turn: 1, 5, 10 and 25 records of Codec 8, 8E and 16, about 10 a packet.
        assertThat(r.records()).isBetween(3000L * 9, 3000L * 12);
        assertThat(r.timedOut()).isFalse();
    }

    @Test
    void itsTimeBoundStopsIt_whateverIsLeftOfThePackets() {
        DevicePathWarmUp.Result r = new DevicePathWarmUp(SettingsLoader.load(Map.of("warm-up.packets", 10_000_000,
                "warm-up.max-time", "200ms"))).run();

        assertThat(r.timedOut()).isTrue();
        assertThat(r.packets()).isLessThan(10_000_000);
        assertThat(r.took()).isLessThan(java.time.Duration.ofSeconds(30));
    }

    @Test
    void syntheticImeis_passTheCheckDigitRule() {
        for (int n = 0; n < 1000; n += 37) {
            assertThat(Imei.luhnValid(SyntheticTraffic.imei(n))).isTrue();
        }
    }
}
