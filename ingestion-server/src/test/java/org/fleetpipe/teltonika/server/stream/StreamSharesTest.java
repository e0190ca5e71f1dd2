package org.fleetpipe.teltonika.server.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Duration;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.stream.StreamShares.Hold;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/**
 * The shares on the packets' path: nobody held below the threshold; past it the heaviest network,
 * and within it the heaviest devices, while the others are admitted; estimates shrink as consumers read.
 */
class StreamSharesTest {

    private static final Imei A = imei(1);
    private static final Imei B = imei(2);
    private static final InetAddress NET_1 = address("127.0.0.0");
    private static final InetAddress NET_2 = address("127.0.1.0");

    /** Shares from 100 entries unread; recomputed at once when asked. */
    private final StreamShares shares = new StreamShares(100, 200);

    private static Imei imei(long n) {
        return Imei.parse(TestImeis.numbered(n), true);
    }

    private static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void belowTheThreshold_thenNobodyHeld_howeverMuchOneDeviceWrote() {
        for (int i = 0; i < 9; i++) {
            assertThat(shares.admit(A, NET_1, 10)).isEqualTo(Hold.NONE);
        }
        assertThat(shares.estimate(A)).isEqualTo(90);
        assertThat(shares.networkLevel()).isEqualTo(FairShares.UNLIMITED);
    }

    @Test
    void pastTheThreshold_thenTheHeavyDeviceIsHeld_andAnotherNetworksDeviceIsAdmitted() {
        assertThat(shares.admit(B, NET_2, 5)).isEqualTo(Hold.NONE);
        for (int i = 0; i < 19; i++) {
            assertThat(shares.admit(A, NET_1, 5)).isEqualTo(Hold.NONE);
        }
        // 100 written: the threshold. 5 for the light network, 95 left for the heavy one.
        assertThat(shares.admit(A, NET_1, 5)).isEqualTo(Hold.DEVICE_SHARE);
        assertThat(shares.networkLevel()).isEqualTo(95);
        for (int i = 0; i < 10; i++) {
            assertThat(shares.admit(B, NET_2, 5)).as("within its share: the room up to the cap is its").isEqualTo(Hold.NONE);
        }
    }

    @Test
    void manyDevicesOfOneNetworkPastTheThreshold_thenHeldForTheirNetwork_theOtherNetworkAdmitted() {
        Imei steady = imei(500);
        shares.admit(steady, NET_2, 4);
        for (int i = 0; i < 12; i++) {
            for (int d = 10; d < 20; d++) {
                Hold hold = shares.admit(imei(d), NET_1, 1);
                if (shares.estimate(imei(d)) < 9) {
                    assertThat(hold).isEqualTo(Hold.NONE);
                }
            }
        }
        assertThat(shares.admit(imei(10), NET_1, 1)).isEqualTo(Hold.NETWORK_SHARE);
        assertThat(shares.networkEstimate(imei(10))).as("about the threshold, not the 120 sent").isLessThanOrEqualTo(100);
        assertThat(shares.admit(imei(99), NET_1, 1)).as("a new device of the network: under the devices' level")
                .isEqualTo(Hold.NONE);
        assertThat(shares.admit(steady, NET_2, 4)).isEqualTo(Hold.NONE);
    }

    @Test
    void aNetworkWhoseHeavyDeviceHoldsItsShare_thenItsLightDevicesGetOnlyItsPartOfTheRoom() {
        Imei steady = imei(500);
        shares.admit(steady, NET_2, 5);
        for (int i = 0; i < 19; i++) {
            shares.admit(A, NET_1, 5);
        }
        assertThat(shares.admit(A, NET_1, 5)).isEqualTo(Hold.DEVICE_SHARE);

        // Made-up IMEIs behind the heavy one's host: the room is 100 (cap 200 - threshold 100), a third
        // of it for a network over its share (two networks and the newcomers).
        int admitted = 0;
        for (int d = 0; d < 100; d++) {
            if (shares.admit(imei(1_000 + d), NET_1, 1) == Hold.NONE) {
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(33);
        assertThat(shares.admit(imei(2_000), NET_1, 1)).isEqualTo(Hold.NETWORK_SHARE);
        for (int i = 0; i < 15; i++) {
            assertThat(shares.admit(steady, NET_2, 5)).as("the other network, within its share").isEqualTo(Hold.NONE);
        }
    }

    @Test
    void consumersRead_thenEstimatesShrink_andBelowTheThresholdNobodyIsHeld() {
        for (int i = 0; i < 20; i++) {
            shares.admit(A, NET_1, 5);
        }
        shares.admit(B, NET_2, 1);
        assertThat(shares.admit(A, NET_1, 5)).isNotEqualTo(Hold.NONE);

        shares.measured(50);

        assertThat(shares.estimate(A)).isEqualTo(49);
        assertThat(shares.estimate(B)).as("scaled to 0: forgotten").isZero();
        assertThat(shares.tracked()).isEqualTo(1);
        assertThat(shares.admit(A, NET_1, 5)).isEqualTo(Hold.NONE);
    }

    @Test
    void aPassThatSeesTheStreamJustBelowTheThreshold_thenTheHeaviestStaysHeld_until90Percent() {
        for (int i = 0; i < 20; i++) {
            shares.admit(A, NET_1, 5);
        }
        shares.admit(B, NET_2, 1);
        assertThat(shares.admit(A, NET_1, 5)).isEqualTo(Hold.DEVICE_SHARE);

        // Writes still in flight when the pass read the stream: it sees 95 of the 101.
        shares.measured(95);
        assertThat(shares.admit(A, NET_1, 5)).as("the heaviest grows no further").isEqualTo(Hold.DEVICE_SHARE);
        assertThat(shares.admit(B, NET_2, 5)).isEqualTo(Hold.NONE);

        shares.measured(89);
        assertThat(shares.admit(A, NET_1, 5)).as("below 90 %% of the threshold").isEqualTo(Hold.NONE);
    }

    @Test
    void theStreamHoldsMoreThanThisInstanceWrote_thenEstimatesStay() {
        shares.admit(A, NET_1, 30);

        shares.measured(10_000);

        assertThat(shares.estimate(A)).isEqualTo(30);
    }

    @Test
    void otherInstancesFillTheStream_thenThisOneDividesItsPartOfTheThreshold() {
        shares.admit(A, NET_1, 30);
        shares.admit(B, NET_2, 10);

        // 200 unread, 40 of them this instance's: its part of the threshold of 100 is 20.
        shares.measured(200);

        assertThat(shares.networkLevel()).isEqualTo(10);
        assertThat(shares.admit(A, NET_1, 1)).isEqualTo(Hold.DEVICE_SHARE);
    }

    @Test
    void aDeviceFromAnotherNetwork_thenItsEntriesMoveWithIt() {
        shares.admit(A, NET_1, 30);
        shares.admit(A, NET_2, 5);

        assertThat(shares.networkOf(A)).isEqualTo(NET_2);
        assertThat(shares.networkEstimate(A)).isEqualTo(35);
    }

    @Test
    void ofTheSettings_thenTheFractionOfTheCap_orOffWithoutACapOrAtOne() {
        StreamRetentionSettings capped = new StreamRetentionSettings(1000, RetentionMode.ACKNOWLEDGED, Duration.ZERO,
                Duration.ofSeconds(1), 5_000_000, 0.8, Duration.ofSeconds(60), 7, 0.5, Duration.ofMinutes(5),
                Duration.ofMinutes(30));
        StreamRetentionSettings uncapped = new StreamRetentionSettings(1000, RetentionMode.ACKNOWLEDGED,
                Duration.ZERO, Duration.ofSeconds(1), 0, 0.8, Duration.ofSeconds(60), 7, 0.5, Duration.ofMinutes(5),
                Duration.ofMinutes(30));

        assertThat(StreamShares.of(capped, 0.8).threshold()).isEqualTo(4_000_000);
        assertThat(StreamShares.of(capped, 1).enabled()).isFalse();
        assertThat(StreamShares.of(uncapped, 0.8).enabled()).isFalse();
    }
}
