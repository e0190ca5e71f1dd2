package org.fleetpipe.teltonika.server.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** First-seen IMEIs per source network: a budget, then only IMEIs Redis knows. */
class NewImeiLimitTest {

    private final List<String> asked = new CopyOnWriteArrayList<>();
    private final Set<String> inRedis = Set.of(TestImeis.numbered(900));
    private final NewImeiLimit limit = new NewImeiLimit(3, imei -> {
        asked.add(imei.value());
        return CompletableFuture.completedFuture(inRedis.contains(imei.value()));
    });

    private boolean admits(String address, long n) throws Exception {
        return limit.admits(InetAddress.getByName(address), new Imei(TestImeis.numbered(n))).toCompletableFuture()
                .join();
    }

    @Test
    void newImeis_whenOverTheNetworkBudget_thenRefused_butOtherNetworksAndRepeatsAreNot() throws Exception {
        assertThat(admits("10.0.0.1", 1)).isTrue();
        assertThat(admits("10.0.0.1", 2)).isTrue();
        assertThat(admits("10.0.0.1", 3)).isTrue();
        assertThat(asked).as("within the budget Redis is not asked").isEmpty();

        assertThat(admits("10.0.0.1", 4)).isFalse();
        assertThat(admits("10.0.0.1", 1)).as("an IMEI let in before is not new").isTrue();
        assertThat(admits("10.0.1.2", 5)).as("another network has its own budget").isTrue();
    }

    @Test
    void newImeis_fromOtherAddressesOfTheSameNetwork_thenOneBudget() throws Exception {
        assertThat(admits("10.0.0.1", 1)).isTrue();
        assertThat(admits("10.0.0.2", 2)).isTrue();
        assertThat(admits("10.0.0.3", 3)).isTrue();

        assertThat(admits("10.0.0.4", 4)).as("a fourth address of the /24: the same budget").isFalse();
        assertThat(admits("10.0.0.5", 5)).isFalse();
    }

    @Test
    void knownImei_whenTheAddressBudgetIsUsedUp_thenAdmittedBecauseRedisHoldsItsState() throws Exception {
        for (int n = 1; n <= 3; n++) {
            admits("10.0.0.1", n);
        }

        assertThat(admits("10.0.0.1", 900)).isTrue();
        assertThat(asked).containsExactly(TestImeis.numbered(900));
        assertThat(admits("10.0.0.1", 900)).isTrue();
        assertThat(asked).as("remembered: asked once").hasSize(1);
    }

    @Test
    void aCutoverWithinTheBurst_thenAllAdmittedAtOnce_thenTheRate() throws Exception {
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        NewImeiLimit cutover = new NewImeiLimit(100, 2_000, imei -> CompletableFuture.completedFuture(false), now::get);
        InetAddress nat = InetAddress.getByName("10.9.9.9");

        for (int n = 0; n < 2_000; n++) {
            assertThat(cutover.admits(nat, new Imei(TestImeis.numbered(10_000 + n))).toCompletableFuture().join())
                    .as("device %d of the cutover", n).isTrue();
        }
        assertThat(cutover.admits(nat, new Imei(TestImeis.numbered(20_000))).toCompletableFuture().join())
                .as("past the burst").isFalse();

        now.addAndGet(java.util.concurrent.TimeUnit.SECONDS.toNanos(6));
        assertThat(cutover.admits(nat, new Imei(TestImeis.numbered(20_001))).toCompletableFuture().join())
                .as("refilled at 100 a minute: 10 in 6 s").isTrue();
    }

    @Test
    void off_whenZero_thenEveryImeiAdmittedWithoutAsking() {
        NewImeiLimit off = new NewImeiLimit(0, imei -> {
            throw new AssertionError("must not ask");
        });

        for (int n = 0; n < 1000; n++) {
            assertThat(off.admits(InetAddress.getLoopbackAddress(), new Imei(TestImeis.numbered(n)))
                    .toCompletableFuture().join()).isTrue();
        }
    }
}
