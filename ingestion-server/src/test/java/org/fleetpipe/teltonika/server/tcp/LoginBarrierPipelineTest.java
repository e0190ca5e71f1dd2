package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.outbound;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.send;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.sendByteByByte;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The login barrier: what a connection may do before, during and after its IMEI handshake. */
class LoginBarrierPipelineTest {

    private PipelineHarness harness = new PipelineHarness();

    @AfterEach
    void closeChannels() {
        harness.close();
    }

    private static byte[] goldenAvl() {
        return GoldenVectors.ofKind("avl").get(0).bytes();
    }

    @Test
    void login_whenImeiValid_thenAnswers01AndRegistersSession() {
        EmbeddedChannel channel = harness.connect();

        send(channel, Frames.login(TestImeis.WIKI));

        assertThat(outbound(channel)).containsExactly(0x01);
        assertThat(channel.isOpen()).isTrue();
        assertThat(harness.sessions.channelOf(new Imei(TestImeis.WIKI))).isSameAs(channel);
        assertThat(harness.logins("accepted", "ok")).isEqualTo(1);
    }

    @Test
    void login_whenDeniedBetweenTheLookupAndTheClaim_thenAnswers00_andTheClaimIsReleased() {
        // The first lookup admits; the one sent behind the claim sees the deny that landed meanwhile.
        AtomicInteger lookups = new AtomicInteger();
        harness.close();
        harness = new PipelineHarness(Map.of(), imei -> CompletableFuture.completedFuture(
                lookups.incrementAndGet() == 1 ? null : "denied"));
        EmbeddedChannel channel = harness.connect();

        send(channel, Frames.login(TestImeis.WIKI));
        channel.runPendingTasks();

        assertThat(outbound(channel)).containsExactly(0x00);
        assertThat(channel.isOpen()).isFalse();
        assertThat(lookups).hasValue(2);
        assertThat(harness.sessions.size()).isZero();
        assertThat(harness.devices.owner(TestImeis.WIKI)).as("claim released").isNull();
        assertThat(harness.logins("refused", "denied")).isEqualTo(1);
        assertThat(harness.logins("accepted", "ok")).isZero();
    }

    @Test
    void login_whenRefusedWhileAPacketBehindItIsInTheSameRead_thenClosedWithoutAnException() {
        // Found by LoginPathFuzzTest: the close ran the refusal's task and released the decoder's
        // cumulation while it was still being read (EmbeddedChannel closes at once).
        harness.close();
        harness = new PipelineHarness(Map.of(), imei -> CompletableFuture.completedFuture("denied"));
        EmbeddedChannel channel = harness.connect();

        send(channel, concat(Frames.login(TestImeis.WIKI), GoldenVectors.ofKind("avl").get(0).bytes()));
        channel.runPendingTasks();

        assertThat(channel.isOpen()).isFalse();
        assertThat(harness.closed("io-error")).isZero();
        assertThat(harness.writer.count()).isZero();
        assertThat(harness.sessions.size()).isZero();
    }

    @Test
    void login_whenSplitIntoSingleBytes_thenAnswers01Once() {
        EmbeddedChannel channel = harness.connect();

        sendByteByByte(channel, Frames.login(TestImeis.WIKI));

        assertThat(outbound(channel)).containsExactly(0x01);
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void login_whenCheckDigitWrong_thenAnswers00AndCloses() {
        EmbeddedChannel channel = harness.connect();

        send(channel, Frames.login(TestImeis.BAD_LUHN));

        assertThat(outbound(channel)).containsExactly(0x00);
        assertThat(channel.isOpen()).isFalse();
        assertThat(harness.sessions.size()).isZero();
        assertThat(harness.logins("refused", "luhn")).isEqualTo(1);
        assertThat(harness.closed("login-refused")).isEqualTo(1);
    }

    @Test
    void login_whenLuhnCheckOff_thenWrongCheckDigitAccepted() {
        harness.close();
        harness = new PipelineHarness(Map.of("imei-luhn-check", false));
        EmbeddedChannel channel = harness.connect();

        send(channel, Frames.login(TestImeis.BAD_LUHN));

        assertThat(outbound(channel)).containsExactly(0x01);
        assertThat(channel.isOpen()).isTrue();
        assertThat(harness.sessions.channelOf(new Imei(TestImeis.BAD_LUHN))).isSameAs(channel);
    }

    @ParameterizedTest
    @ValueSource(strings = {"35630704244101", "3563070424410133", "35630704244101A", "ABCDEFGHIJKLMNO", "35630704244 013"})
    void login_whenImeiMalformed_thenAnswers00AndCloses(String text) {
        EmbeddedChannel channel = harness.connect();

        send(channel, Frames.login(text));

        assertThat(outbound(channel)).containsExactly(0x00);
        assertThat(channel.isOpen()).isFalse();
        assertThat(harness.logins("refused", "malformed")).isEqualTo(1);
    }

    @Test
    void login_whenImeiMalformedAndLuhnCheckOff_thenStillRefused() {
        harness.close();
        harness = new PipelineHarness(Map.of("imei-luhn-check", false));
        EmbeddedChannel channel = harness.connect();

        send(channel, Frames.login("35630704244101"));

        assertThat(outbound(channel)).containsExactly(0x00);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void dataFrame_whenBeforeLogin_thenNoAnswerAndClosed() {
        EmbeddedChannel channel = harness.connect();

        send(channel, goldenAvl());
        channel.runPendingTasks();

        assertThat(outbound(channel)).isEmpty();
        assertThat(channel.isOpen()).isFalse();
        assertThat(harness.writer.count()).as("nothing may be stored for an unknown device").isZero();
        assertThat(harness.rejected("not-logged-in")).isEqualTo(1);
        assertThat(harness.closed("protocol-violation")).isEqualTo(1);
    }

    @Test
    void ping_whenLoggedIn_thenNoAnswerAndStaysOpen() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        send(channel, new byte[] {(byte) 0xFF});

        assertThat(outbound(channel)).isEmpty();
        assertThat(channel.isOpen()).isTrue();
        assertThat(harness.pings()).isEqualTo(1);
        // The ping must not leave the sequencer waiting for a frameDone that never comes.
        send(channel, goldenAvl());
        assertThat(harness.writer.count()).isEqualTo(1);
    }

    @Test
    void ping_whenBehindTheLoginFrameInOneRead_thenClosedBeforeAnythingIsStored() {
        EmbeddedChannel channel = harness.connect();

        send(channel, Frames.concat(Frames.login(TestImeis.WIKI), new byte[] {(byte) 0xFF}, goldenAvl()));
        channel.runPendingTasks();

        assertThat(channel.isOpen()).isFalse();
        assertThat(harness.writer.count()).isZero();
        assertThat(harness.rejected("not-logged-in")).isEqualTo(1);
        assertThat(harness.closed("protocol-violation")).isEqualTo(1);
    }

    @Test
    void keepAlives_whenSixteenBeforeTheLoginInSeveralReads_thenSkipped_andTheLoginAnswers01() {
        EmbeddedChannel channel = harness.connect();

        send(channel, keepAlives(9));
        send(channel, Frames.concat(keepAlives(7), Frames.login(TestImeis.WIKI)));
        channel.runPendingTasks();

        assertThat(outbound(channel)).containsExactly(0x01);
        assertThat(channel.isOpen()).isTrue();
        assertThat(harness.rejected("not-logged-in")).isZero();
        send(channel, goldenAvl());
        assertThat(harness.writer.count()).isEqualTo(1);
    }

    @Test
    void keepAlives_whenSeventeenBeforeLogin_thenClosedOnTheSeventeenth() {
        EmbeddedChannel channel = harness.connect();

        send(channel, keepAlives(16));
        assertThat(channel.isOpen()).isTrue();
        send(channel, Frames.concat(keepAlives(1), Frames.login(TestImeis.WIKI)));
        channel.runPendingTasks();

        assertThat(channel.isOpen()).isFalse();
        assertThat(outbound(channel)).as("no login answer").isEmpty();
        assertThat(harness.pings()).as("not a keep-alive after login").isZero();
        assertThat(harness.rejected("not-logged-in")).isEqualTo(1);
        assertThat(harness.deadLetters.letters()).isEmpty();
    }

    private static byte[] keepAlives(int count) {
        byte[] bytes = new byte[count];
        Arrays.fill(bytes, (byte) 0xFF);
        return bytes;
    }

    @Test
    void dataFrame_whenOnlyItsPreambleArrivedBeforeLogin_thenClosedWithoutWaitingForTheBody() {
        EmbeddedChannel channel = harness.connect();

        send(channel, new byte[] {0, 0});

        assertThat(channel.isOpen()).as("two zero bytes cannot start a login").isFalse();
        assertThat(harness.rejected("not-logged-in")).isEqualTo(1);
        assertThat(harness.deadLetters.letters()).isEmpty();
    }

    @Test
    void login_whenTrickledPastTheDeadline_thenClosedAtTheDeadlineThoughBytesKeepComing() {
        harness.close();
        harness = new PipelineHarness(Map.of("timeouts.login", "5s"));
        EmbeddedChannel channel = harness.connect();
        channel.freezeTime();
        byte[] login = Frames.login(TestImeis.WIKI);

        // One byte a second: a reader-idle timer of 5 s would never fire.
        for (int i = 0; i < 5; i++) {
            send(channel, new byte[] {login[i]});
            channel.advanceTimeBy(999, TimeUnit.MILLISECONDS);
            channel.runScheduledPendingTasks();
        }
        assertThat(channel.isOpen()).as("4.995 s after accept").isTrue();
        channel.advanceTimeBy(10, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();

        assertThat(channel.isOpen()).as("5.005 s after accept").isFalse();
        assertThat(harness.closed("login-timeout")).isEqualTo(1);
    }

    @Test
    void connection_whenThePreLoginPoolIsFull_thenTheOldestIsEvictedForIt_andALoginFreesItsPlace() {
        harness.close();
        harness = new PipelineHarness(Map.of("limits.max-pre-login-connections", 2));
        EmbeddedChannel first = harness.connect();
        EmbeddedChannel second = harness.connect();

        EmbeddedChannel third = harness.connect();
        first.runPendingTasks();

        assertThat(first.isOpen()).as("the oldest, closed through its own loop").isFalse();
        assertThat(third.isOpen()).as("the newcomer let in").isTrue();
        assertThat(harness.closed("pre-login-evicted")).isEqualTo(1);
        assertThat(harness.closed("pre-login-limit")).isZero();
        assertThat(preLoginGauge()).isEqualTo(2);
        send(second, Frames.login(TestImeis.WIKI));
        assertThat(outbound(second)).containsExactly(0x01);
        assertThat(preLoginGauge()).as("a logged-in connection no longer counts").isEqualTo(1);
        assertThat(harness.connect().isOpen()).isTrue();
        assertThat(harness.closed("pre-login-evicted")).as("a free place: nobody evicted").isEqualTo(1);
        third.close();
        assertThat(preLoginGauge()).as("a closed one neither").isEqualTo(1);
    }

    private double preLoginGauge() {
        return harness.registry.get("teltonika.connections.pre.login").gauge().value();
    }

    @Test
    void secondLogin_whenAlreadyLoggedIn_thenClosedWithoutAnswer() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        send(channel, Frames.login(TestImeis.WIKI));

        assertThat(outbound(channel)).isEmpty();
        assertThat(channel.isOpen()).isFalse();
        assertThat(harness.rejected("second-login")).isEqualTo(1);
        assertThat(harness.sessions.size()).as("the closed connection leaves the session table").isZero();
    }

    @Test
    void duplicateLogin_whenSameImeiOnAnotherConnection_thenOlderClosedAndNewerKept() {
        EmbeddedChannel first = harness.loggedIn(TestImeis.WIKI);

        EmbeddedChannel second = harness.loggedIn(TestImeis.WIKI);

        assertThat(first.isOpen()).isFalse();
        assertThat(second.isOpen()).isTrue();
        // The older channel's cleanup must not remove the newer channel's entry.
        assertThat(harness.sessions.channelOf(new Imei(TestImeis.WIKI))).isSameAs(second);
        assertThat(harness.closed("duplicate-login")).isEqualTo(1);
    }

    @Test
    void connection_whenNoLoginWithinLoginTimeout_thenClosed() {
        harness.close();
        harness = new PipelineHarness(Map.of("timeouts.login", "5s", "timeouts.read-idle", "60s"));
        EmbeddedChannel channel = harness.connect();
        channel.freezeTime();

        channel.advanceTimeBy(4, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).as("before the login timeout").isTrue();

        channel.advanceTimeBy(2, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).as("after the login timeout").isFalse();
        assertThat(harness.closed("login-timeout")).isEqualTo(1);
    }

    @Test
    void connection_whenLoggedInAndSilent_thenReadIdleTimeoutAppliesInsteadOfLoginTimeout() {
        harness.close();
        harness = new PipelineHarness(Map.of("timeouts.login", "5s", "timeouts.read-idle", "60s"));
        EmbeddedChannel channel = harness.connect();
        channel.freezeTime();
        send(channel, Frames.login(TestImeis.WIKI));
        assertThat(outbound(channel)).containsExactly(0x01);

        channel.advanceTimeBy(30, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).as("well past the login timeout, within read-idle").isTrue();

        channel.advanceTimeBy(31, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).as("past read-idle").isFalse();
        assertThat(harness.closed("idle-timeout")).isEqualTo(1);
    }

    @Test
    void connection_whenOverMaxConnections_thenClosedAtOnceAndCounted() {
        harness.close();
        harness = new PipelineHarness(Map.of("limits.max-connections", 1));
        EmbeddedChannel first = harness.connect();

        EmbeddedChannel second = harness.connect();

        assertThat(first.isOpen()).isTrue();
        assertThat(second.isOpen()).isFalse();
        assertThat(harness.closed("connection-limit")).isEqualTo(1);
        assertThat(harness.metrics.activeConnections()).as("the refused one no longer counts").isEqualTo(1);
        // A slot freed by a close is usable again.
        first.close();
        assertThat(harness.connect().isOpen()).isTrue();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
