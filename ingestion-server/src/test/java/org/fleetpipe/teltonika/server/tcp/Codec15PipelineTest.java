package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.outbound;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.send;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.admission.Admission;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.command.DeviceCommands;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.RecordingDeadLetters.Letter;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Codec 15 through the real device pipeline: the session's own IMEI reaches the command side and
 * gets no answer (Teltonika documents none); another IMEI is dead-lettered, counted and logged
 * once, never handed on, and the connection keeps being served.
 */
class Codec15PipelineTest {

    private static final long TIMESTAMP = 1_699_440_036L;

    private final List<CommandFrame> handedOn = new CopyOnWriteArrayList<>();
    private final PipelineHarness harness = new PipelineHarness(Map.of(), Admission.OPEN, new DeviceCommands() {
        @Override
        public void loggedIn(Imei imei, Channel channel) {
        }

        @Override
        public CompletionStage<Void> frame(Imei imei, Channel channel, CommandFrame frame) {
            handedOn.add(frame);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void disconnected(Imei imei, Channel channel) {
        }
    });
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger refusalLog = (Logger) LoggerFactory.getLogger(RefusalLog.class);

    @BeforeEach
    void watchLog() {
        log.start();
        refusalLog.addAppender(log);
    }

    @AfterEach
    void close() {
        refusalLog.detachAppender(log);
        harness.close();
    }

    @Test
    void message_whenTheSessionsImei_thenHandedOnWithTimestampAndText_andNothingAnswered() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        send(channel, Frames.command(CommandFrame.codec15Message(TestImeis.WIKI, TIMESTAMP, "Hello!\n")));

        assertThat(handedOn).containsExactly(CommandFrame.codec15Message(TestImeis.WIKI, TIMESTAMP, "Hello!\n"));
        assertThat(outbound(channel)).as("Codec 15 is one-way").isEmpty();
        assertThat(channel.isOpen()).isTrue();
        assertThat(harness.deadLetters.letters()).isEmpty();
        assertThat(harness.count("teltonika.frames.received", "codec", "15")).isEqualTo(1);
    }

    @Test
    void message_whenAnotherImei_thenDeadLetteredCountedLoggedOnce_notHandedOn_andTheDeviceStillServed() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        byte[] foreign = Frames.command(CommandFrame.codec15Message(TestImeis.OTHER, TIMESTAMP, "not mine"));

        send(channel, Frames.concat(foreign, foreign, foreign,
                Frames.avl(new RandomAvl(15L).packet(CodecId.CODEC_8, 2))));
        harness.writer.write(0).succeed();
        channel.runPendingTasks();

        assertThat(handedOn).isEmpty();
        assertThat(harness.deadLetters.letters()).hasSize(3).allSatisfy(letter -> {
            assertThat(letter.reason()).isEqualTo("codec15-imei-mismatch");
            assertThat(letter.imei()).as("filed under the session's IMEI").isEqualTo(TestImeis.WIKI);
            assertThat(letter.origin().loggedIn()).isTrue();
            assertThat(letter.detail()).contains(TestImeis.OTHER).contains(TestImeis.WIKI);
            assertThat(letter.hex()).as("the whole frame").isEqualTo(Hex.of(foreign));
        });
        assertThat(harness.rejected("codec15-imei-mismatch")).isEqualTo(3);
        assertThat(log.list).extracting(ILoggingEvent::getFormattedMessage).singleElement().asString()
                .contains("imei=" + TestImeis.WIKI).contains("claimed=" + TestImeis.OTHER)
                .contains("codec15-imei-mismatch");
        assertThat(outbound(channel)).as("only the packet's ACK").containsExactly(0, 0, 0, 2);
        assertThat(channel.isOpen()).isTrue();
    }

    @Test
    void message_whenTheDeadLetterIsStillBeingStored_thenTheNextFrameWaits() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        harness.deadLetters.holdStores();

        send(channel, Frames.concat(
                Frames.command(CommandFrame.codec15Message(TestImeis.OTHER, TIMESTAMP, "not mine")),
                Frames.command(CommandFrame.codec15Message(TestImeis.WIKI, TIMESTAMP, "mine"))));

        assertThat(handedOn).isEmpty();
        harness.deadLetters.finishStores();
        channel.runPendingTasks();
        assertThat(handedOn).extracting(CommandFrame::text).containsExactly("mine");
    }

    @Test
    void message_whenItsImeiFieldIsNoImei_thenRejectedAsABadCommandFrameAndClosed() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        byte[] frame = Frames.command(CommandFrame.codec15Message(TestImeis.WIKI, TIMESTAMP, "x"));
        byte[] body = Frames.body(frame);
        body[7 + 4] = (byte) 0xAB; // first IMEI byte, after codec, quantity, type, size and timestamp

        send(channel, Frames.tcpFrame(body));

        assertThat(handedOn).isEmpty();
        assertThat(harness.rejected("bad-command-frame")).isEqualTo(1);
        assertThat(harness.deadLetters.letters()).extracting(Letter::reason).containsExactly("bad-command-frame");
        assertThat(channel.isOpen()).isFalse();
    }
}
