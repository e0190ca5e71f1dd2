package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a packet reads the dedup sets, and when it refreshes the device info hash. */
class ResendGuardTest {

    @Test
    void tcpConnection_thenTheFirstPacketsAfterLoginAndARepeatOfTheLastAreChecked() {
        ResendGuard guard = ResendGuard.forConnection();

        assertThat(guard.mayBeResent(new long[] {1, 2})).as("first after login").isTrue();
        assertThat(guard.mayBeResent(new long[] {3, 4})).as("second after login").isTrue();
        assertThat(guard.mayBeResent(new long[] {5, 6})).as("steady").isFalse();
        assertThat(guard.mayBeResent(new long[] {6, 7})).as("shares a record with the last").isTrue();
        assertThat(guard.mayBeResent(new long[] {8})).isFalse();
        assertThat(guard.mayBeResent(new long[] {3})).as("older than the last: not a resend a device makes")
                .isFalse();
    }

    @Test
    void withoutAConnection_thenEveryPacketIsCheckedAndRefreshes() {
        ResendGuard guard = ResendGuard.everyPacket();

        for (int i = 0; i < 5; i++) {
            assertThat(guard.mayBeResent(new long[] {i})).isTrue();
            assertThat(guard.infoRefreshDue(1_000 + i)).isTrue();
        }
    }

    @Test
    void infoRefresh_thenAtMostOnceEveryTenSecondsPerConnection() {
        ResendGuard guard = ResendGuard.forConnection();

        assertThat(guard.infoRefreshDue(100_000)).as("the first packet").isTrue();
        assertThat(guard.infoRefreshDue(105_000)).isFalse();
        assertThat(guard.infoRefreshDue(109_999)).isFalse();
        assertThat(guard.infoRefreshDue(110_000)).isTrue();
        assertThat(guard.infoRefreshDue(111_000)).isFalse();
    }

    @Test
    void lastPacket_isRememberedByValue_whateverItsSizeAndWhateverTheCallerDoesWithItsArray() {
        ResendGuard guard = ResendGuard.forConnection();
        guard.mayBeResent(new long[] {1});
        guard.mayBeResent(new long[] {2});
        long[] small = {3, 4};
        guard.mayBeResent(small);
        small[0] = 99;

        assertThat(guard.mayBeResent(new long[] {3})).as("the packet as it was sent").isTrue();
        long[] big = new long[40];
        for (int i = 0; i < big.length; i++) {
            big[i] = 100 + i;
        }
        assertThat(guard.mayBeResent(big)).isFalse();
        assertThat(guard.mayBeResent(new long[] {139})).as("the last of a longer packet").isTrue();
        assertThat(guard.mayBeResent(new long[] {7, 8})).isFalse();
        assertThat(guard.mayBeResent(new long[] {120})).as("only the previous packet counts").isFalse();
    }
}
