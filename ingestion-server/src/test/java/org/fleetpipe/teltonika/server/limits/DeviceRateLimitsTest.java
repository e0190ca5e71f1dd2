package org.fleetpipe.teltonika.server.limits;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** Each device's budget of records and bytes: bursts pass, a flood waits (TCP) or is dropped (UDP), per IMEI. */
class DeviceRateLimitsTest {

    private static final Imei A = Imei.parse(TestImeis.numbered(1), true);
    private static final Imei B = Imei.parse(TestImeis.numbered(2), true);

    private long now = TimeUnit.SECONDS.toNanos(100);
    private final DeviceRateLimits limits = new DeviceRateLimits(new DeviceRateSettings(10, 1000, 1000, 100_000), 2,
            () -> now);

    @Test
    void backlogWithinTheBurst_thenNoWait() {
        for (int i = 0; i < 4; i++) {
            assertThat(limits.delayNanos(A, 250, 10_000)).isZero();
        }
    }

    @Test
    void pastTheBurst_thenTheNextPacketWaitsForItsRecordsAtTheRate() {
        for (int i = 0; i < 4; i++) {
            limits.delayNanos(A, 250, 100);
        }

        assertThat(limits.delayNanos(A, 20, 100)).as("20 records at 10 a second").isEqualTo(TimeUnit.SECONDS.toNanos(2));
        assertThat(limits.delayNanos(B, 20, 100)).as("another device has its own budget").isZero();
    }

    @Test
    void bytesPastTheirBurst_thenTheWaitIsTheBytesOne() {
        limits.delayNanos(A, 1, 100_000);

        assertThat(limits.delayNanos(A, 1, 500)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
    }

    @Test
    void datagrams_whenTheBudgetIsSpent_thenDropped_andTakenAgainOnceRefilled() {
        assertThat(limits.tryTakeNow(A, 255, 100)).isTrue();
        assertThat(limits.tryTakeNow(A, 255, 100)).isTrue();
        assertThat(limits.tryTakeNow(A, 255, 100)).isTrue();
        assertThat(limits.tryTakeNow(A, 255, 100)).isFalse();
        assertThat(limits.tryTakeNow(A, 235, 100)).as("what is left of the burst").isTrue();
        assertThat(limits.tryTakeNow(A, 10, 100)).isFalse();

        now += TimeUnit.SECONDS.toNanos(1);
        assertThat(limits.tryTakeNow(A, 10, 100)).isTrue();
    }

    @Test
    void reconnecting_thenTheBudgetIsTheDevicesNotTheConnections() {
        limits.delayNanos(A, 1000, 100);

        // A new connection of the same IMEI finds the same spent budget.
        assertThat(limits.delayNanos(A, 10, 100)).isEqualTo(TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void sweep_thenOnlyDevicesWithAFullBudgetAreForgotten() {
        limits.delayNanos(A, 1000, 100);
        limits.delayNanos(B, 1, 100);
        now += TimeUnit.SECONDS.toNanos(1);

        limits.sweep();

        assertThat(limits.tracked()).as("B refilled its one record; A has not").isEqualTo(1);
        assertThat(limits.delayNanos(A, 20, 100)).isEqualTo(TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void datagramsOfNewDevices_pastTheTrackedBound_thenDropped() {
        limits.tryTakeNow(A, 1, 1);
        limits.tryTakeNow(B, 1, 1);

        assertThat(limits.tryTakeNow(Imei.parse(TestImeis.numbered(3), true), 1, 1)).isFalse();
        assertThat(limits.delayNanos(Imei.parse(TestImeis.numbered(3), true), 1, 1)).as("a logged-in connection")
                .isZero();
    }

    @Test
    void off_thenEverythingPasses() {
        DeviceRateLimits off = new DeviceRateLimits(DeviceRateSettings.OFF, 0, () -> now);

        assertThat(off.delayNanos(A, 100_000, 100_000_000)).isZero();
        assertThat(off.tryTakeNow(A, 100_000, 100_000_000)).isTrue();
        assertThat(off.tracked()).isZero();
    }
}
