package org.fleetpipe.teltonika.server.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** Each device's estimated share of the unread entries: grows with its writes, shrinks as consumers read. */
class DeviceStreamSharesTest {

    private static final Imei A = Imei.parse(TestImeis.numbered(1), true);
    private static final Imei B = Imei.parse(TestImeis.numbered(2), true);

    private final DeviceStreamShares shares = new DeviceStreamShares(100);

    @Test
    void writesUpToTheShare_thenNotOver_oneMore_thenOver() {
        shares.written(A, 90);

        assertThat(shares.over(A, 10)).isFalse();
        assertThat(shares.over(A, 11)).isTrue();
        assertThat(shares.over(B, 100)).isFalse();
    }

    @Test
    void consumersRead_thenEveryEstimateShrinksInProportion_andDevicesAtZeroAreForgotten() {
        shares.written(A, 300);
        shares.written(B, 1);

        shares.measured(150);

        assertThat(shares.estimate(A)).isEqualTo(149);
        assertThat(shares.estimate(B)).isZero();
        assertThat(shares.tracked()).isEqualTo(1);
    }

    @Test
    void streamHoldingMoreThanThisInstanceWrote_thenNothingShrinks() {
        shares.written(A, 300);

        shares.measured(10_000);

        assertThat(shares.estimate(A)).isEqualTo(300);
    }

    @Test
    void ofTheSettings_thenTheShareOfTheCap_orOffWithoutACap() {
        StreamRetentionSettings capped = new StreamRetentionSettings(1000, RetentionMode.ACKNOWLEDGED, Duration.ZERO,
                Duration.ofSeconds(1), 5_000_000, 0.8, Duration.ofSeconds(60), 7, 0.5, Duration.ofMinutes(5),
                Duration.ofMinutes(30));
        StreamRetentionSettings uncapped = new StreamRetentionSettings(1000, RetentionMode.ACKNOWLEDGED,
                Duration.ZERO, Duration.ofSeconds(1), 0, 0.8, Duration.ofSeconds(60), 7, 0.5, Duration.ofMinutes(5),
                Duration.ofMinutes(30));

        assertThat(DeviceStreamShares.of(capped, 0.01).maxPerDevice()).isEqualTo(50_000);
        assertThat(DeviceStreamShares.of(capped, 0).enabled()).isFalse();
        assertThat(DeviceStreamShares.of(uncapped, 0.01).enabled()).isFalse();
    }
}
