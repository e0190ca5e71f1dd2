package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.outbound;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.send;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.server.admission.Admission;
import org.fleetpipe.teltonika.server.capture.CaptureEntry;
import org.fleetpipe.teltonika.server.capture.CaptureSettings;
import org.fleetpipe.teltonika.server.capture.CaptureSink;
import org.fleetpipe.teltonika.server.command.DeviceCommands;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The capture tap on the real device pipeline with real frames: every frame both ways, in the order
 * of the connection, with its direction and outcome; nothing at all for a device not captured; the
 * byte cap ends the capture and takes the tap out.
 */
class CaptureTapPipelineTest {

    private final RecordingSink sink = new RecordingSink();
    private final PipelineHarness harness = new PipelineHarness(Map.of(), Admission.OPEN, new DeviceCommands() {
        @Override
        public void loggedIn(Imei imei, Channel channel) {
        }

        @Override
        public CompletionStage<Void> frame(Imei imei, Channel channel, CommandFrame frame) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void disconnected(Imei imei, Channel channel) {
        }
    }, sink);

    @AfterEach
    void close() {
        harness.close();
    }

    private static byte[] golden(String name) {
        return GoldenVectors.all().stream().filter(v -> v.name().equals(name)).findFirst().orElseThrow().bytes();
    }

    private static String hex(byte[] bytes) {
        return io.netty.buffer.ByteBufUtil.hexDump(bytes);
    }

    @Test
    void capturedDevice_everyFrameBothWays_inOrder_withDirectionAndOutcome() {
        sink.active.put(TestImeis.WIKI, System.currentTimeMillis() + 60_000);
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        byte[] avl = golden("codec8-example-3");
        byte[] command = Frames.command(CommandFrame.codec12Command("getinfo"));
        byte[] reply = Frames.command(CommandFrame.codec12Response("FW:1"));
        byte[] badCrc = Frames.withBadCrc(avl);

        send(channel, new byte[] {(byte) 0xFF});
        send(channel, avl);
        harness.writer.write(0).succeed();
        channel.runPendingTasks();
        assertThat(outbound(channel)).isEqualTo(new byte[] {0, 0, 0, 2});
        channel.writeAndFlush(Unpooled.wrappedBuffer(command));
        assertThat(outbound(channel)).isEqualTo(command);
        send(channel, reply);
        send(channel, badCrc);
        channel.runPendingTasks();

        assertThat(channel.isOpen()).as("a bad CRC closes the connection").isFalse();
        assertThat(sink.entries).extracting(CaptureEntry::dir, CaptureEntry::hex, CaptureEntry::outcome).containsExactly(
                tuple("in", hex(Frames.login(TestImeis.WIKI)), "received login"),
                tuple("out", "01", "login accepted"),
                tuple("in", "ff", "received keep-alive"),
                tuple("in", hex(avl), "received codec 8"),
                tuple("out", "00000002", "acknowledged 2"),
                tuple("out", hex(command), "sent"),
                tuple("in", hex(reply), "received codec 12"),
                tuple("in", hex(badCrc), "dead-lettered bad-crc"),
                tuple("out", "", "closed rejected-frame"));
        assertThat(sink.entries).extracting(CaptureEntry::at).isSorted();
        assertThat(harness.registry.find("teltonika.capture.entries.written").counter().count()).isEqualTo(9);
        assertThat(harness.captureTaps.active()).as("the tap left with the connection").isZero();
    }

    @Test
    void undecodableAvlBody_isCapturedAsReceived_thenDeadLettered() {
        sink.active.put(TestImeis.WIKI, System.currentTimeMillis() + 60_000);
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        // A well-framed Codec 8 body whose record counts disagree: cut by the framer, refused by the decoder.
        byte[] bad = Frames.tcpFrame(Hex.bytes("0801" + "00".repeat(30) + "02"));

        send(channel, bad);

        assertThat(sink.entries).extracting(CaptureEntry::dir, CaptureEntry::outcome).containsSubsequence(
                tuple("in", "received codec 8"),
                tuple("in", "dead-lettered " + harness.deadLetters.letters().get(0).reason()));
        assertThat(sink.entries.get(sink.entries.size() - 2).hex()).isEqualTo(hex(bad));
    }

    @Test
    void deviceNotCaptured_hasNoTapInItsPipeline_andNothingIsStored() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        send(channel, new byte[] {(byte) 0xFF});

        assertThat(channel.pipeline().get(CaptureTap.class)).isNull();
        assertThat(sink.appends).isZero();
        assertThat(harness.captureTaps.active()).isZero();
    }

    @Test
    void captureEvent_forAConnectedDevice_addsTheTap_andAStopEventTakesItOut() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        sink.active.put(TestImeis.WIKI, System.currentTimeMillis() + 60_000);

        harness.captureTaps.accept(TestImeis.WIKI);
        channel.runPendingTasks();
        send(channel, new byte[] {(byte) 0xFF});

        assertThat(channel.pipeline().get(CaptureTap.class)).isNotNull();
        assertThat(harness.captureTaps.active()).isEqualTo(1);
        assertThat(sink.entries).extracting(CaptureEntry::outcome).containsExactly("received keep-alive");

        sink.active.remove(TestImeis.WIKI);
        harness.captureTaps.accept(TestImeis.WIKI);
        channel.runPendingTasks();
        send(channel, new byte[] {(byte) 0xFF});

        assertThat(channel.pipeline().get(CaptureTap.class)).isNull();
        assertThat(harness.captureTaps.active()).isZero();
        assertThat(sink.appends).isEqualTo(1);
    }

    @Test
    void byteCap_whenReached_stopsTheCapture_withALastEntry_andTheTapLeaves() {
        sink.active.put(TestImeis.WIKI, System.currentTimeMillis() + 60_000);
        byte[] avl = golden("codec8-example-3");
        // The login and its answer fit, the packet does not.
        sink.maxBytes = CaptureSettings.entryCost(hex(Frames.login(TestImeis.WIKI)), "received login")
                + CaptureSettings.entryCost("01", "login accepted") + CaptureSettings.entryCost("ff", "received keep-alive");
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);

        send(channel, avl);
        channel.runPendingTasks();
        send(channel, new byte[] {(byte) 0xFF});

        assertThat(sink.entries).extracting(CaptureEntry::outcome).containsExactly("received login", "login accepted",
                "capture stopped: CAPTURE_MAX_BYTES reached");
        assertThat(channel.pipeline().get(CaptureTap.class)).isNull();
        assertThat(harness.registry.find("teltonika.capture.stopped").tag("reason", "max-bytes").counter().count())
                .isEqualTo(1);
        assertThat(channel.isOpen()).as("the device is served on").isTrue();
    }

    @Test
    void redisNotAnswering_atMostMaxWaitingEntriesWait_theRestAreDroppedAndCounted_thenSaidSo() {
        sink.active.put(TestImeis.WIKI, System.currentTimeMillis() + 60_000);
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        channel.runPendingTasks();
        sink.hang = true;

        for (int i = 0; i < CaptureTap.MAX_WAITING + 10; i++) {
            send(channel, new byte[] {(byte) 0xFF});
        }

        assertThat(sink.hanging).hasSize(CaptureTap.MAX_WAITING);
        assertThat(harness.registry.find("teltonika.capture.entries.dropped").counter().count()).isEqualTo(10);
        sink.hanging.forEach(f -> f.complete(CaptureSink.Appended.STORED));
        channel.runPendingTasks();
        send(channel, new byte[] {(byte) 0xFF});

        assertThat(sink.hangingEntries.subList(CaptureTap.MAX_WAITING, sink.hangingEntries.size()))
                .extracting(CaptureEntry::hex, CaptureEntry::outcome).containsExactly(
                        tuple("", "10 entries not captured (Redis too slow or failing)"),
                        tuple("ff", "received keep-alive"));
    }

    /** Active captures and stored entries in memory, with the store's byte cap. */
    private static final class RecordingSink implements CaptureSink {
        final Map<String, Long> active = new ConcurrentHashMap<>();
        final List<CaptureEntry> entries = new CopyOnWriteArrayList<>();
        final List<CompletableFuture<Appended>> hanging = new CopyOnWriteArrayList<>();
        final List<CaptureEntry> hangingEntries = new CopyOnWriteArrayList<>();
        long maxBytes = Long.MAX_VALUE;
        long used;
        int appends;
        boolean hang;

        @Override
        public CompletionStage<Long> activeUntil(String imei) {
            return CompletableFuture.completedFuture(active.get(imei));
        }

        @Override
        public CompletionStage<Appended> append(String imei, CaptureEntry entry) {
            appends++;
            if (hang) {
                CompletableFuture<Appended> later = new CompletableFuture<>();
                hanging.add(later);
                hangingEntries.add(entry);
                return later;
            }
            if (!active.containsKey(imei)) {
                return CompletableFuture.completedFuture(Appended.INACTIVE);
            }
            used += CaptureSettings.entryCost(entry.hex(), entry.outcome());
            if (used > maxBytes) {
                entries.add(CaptureEntry.of(entry.dir(), "", "capture stopped: CAPTURE_MAX_BYTES reached"));
                active.remove(imei);
                return CompletableFuture.completedFuture(Appended.CAPPED);
            }
            entries.add(entry);
            return CompletableFuture.completedFuture(Appended.STORED);
        }
    }
}
