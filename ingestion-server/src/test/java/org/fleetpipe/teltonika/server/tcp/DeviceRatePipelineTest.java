package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.outbound;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.send;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A device over its rate budget: its packet waits for the budget before it is written, then gets its ACK. */
class DeviceRatePipelineTest {

    private final PipelineHarness harness = new PipelineHarness(Map.of("limits.device-records-per-second", 10,
            "limits.device-records-burst", 255, "limits.device-bytes-per-second", 0));
    private final RandomAvl random = new RandomAvl(29L);

    @AfterEach
    void closeChannels() {
        harness.close();
    }

    private void sendAndStore(EmbeddedChannel channel, AvlPacket packet) {
        send(channel, Frames.avl(packet));
        channel.runPendingTasks();
        harness.writer.write(harness.writer.count() - 1).succeed();
        channel.runPendingTasks();
    }

    @Test
    void packetPastTheBurst_thenWrittenOnlyOnceTheBudgetCoversIt_andAcknowledgedThen() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        channel.freezeTime();
        for (int i = 0; i < 5; i++) {
            sendAndStore(channel, random.packet(CodecId.CODEC_8, 50));
        }
        assertThat(harness.writer.count()).as("the 250-record backlog within the burst").isEqualTo(5);
        outbound(channel);

        send(channel, Frames.avl(random.packet(CodecId.CODEC_8, 50)));
        channel.runPendingTasks();
        assertThat(harness.writer.count()).as("45 records over the budget: waits 4.5 s").isEqualTo(5);
        assertThat(harness.count("teltonika.device.rate.limited", "action", "delayed")).isEqualTo(1);

        harness.rateNanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(4_500));
        channel.advanceTimeBy(4_400, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(harness.writer.count()).isEqualTo(5);
        channel.advanceTimeBy(100, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        channel.runPendingTasks();

        assertThat(harness.writer.count()).isEqualTo(6);
        harness.writer.write(5).succeed();
        channel.runPendingTasks();
        assertThat(outbound(channel)).containsExactly(0, 0, 0, 50);
    }

    @Test
    void deviceClosingWhileItsPacketWaits_thenTheFrameIsReleasedUnwritten() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        channel.freezeTime();
        for (int i = 0; i < 5; i++) {
            sendAndStore(channel, random.packet(CodecId.CODEC_8, 51));
        }
        send(channel, Frames.avl(random.packet(CodecId.CODEC_8, 20)));
        channel.runPendingTasks();

        channel.close();
        channel.advanceTimeBy(10, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();

        assertThat(harness.writer.count()).isEqualTo(5);
    }
}
