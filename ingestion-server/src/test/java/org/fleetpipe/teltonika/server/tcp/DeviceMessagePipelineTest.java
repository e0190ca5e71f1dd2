package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.outbound;
import static org.fleetpipe.teltonika.server.tcp.PipelineHarness.send;

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
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.server.admission.Admission;
import org.fleetpipe.teltonika.server.command.DeviceCommands;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Codec 12/13/14 frames from a device take the same back-pressure as AVL packets. */
class DeviceMessagePipelineTest {

    /** Each frame's store stays under way until the test completes it. */
    private final List<CompletableFuture<Void>> stores = new CopyOnWriteArrayList<>();
    private final PipelineHarness harness = new PipelineHarness(Map.of(), Admission.OPEN, new DeviceCommands() {
        @Override
        public void loggedIn(Imei imei, Channel channel) {
        }

        @Override
        public CompletionStage<Void> frame(Imei imei, Channel channel, CommandFrame frame) {
            CompletableFuture<Void> store = new CompletableFuture<>();
            stores.add(store);
            return store;
        }

        @Override
        public void disconnected(Imei imei, Channel channel) {
        }
    });

    @AfterEach
    void close() {
        harness.close();
    }

    @Test
    void messages_whenTheFirstIsStillBeingStored_thenTheNextWaitsAndReadingIsOff() {
        EmbeddedChannel channel = harness.loggedIn(TestImeis.WIKI);
        byte[] message = Frames.command(CommandFrame.codec12Response("hello"));

        send(channel, Frames.concat(message, message, Frames.avl(new RandomAvl(1L).packet(CodecId.CODEC_8, 1))));

        assertThat(stores).as("one frame at a time").hasSize(1);
        assertThat(channel.config().isAutoRead()).isFalse();
        stores.get(0).complete(null);
        channel.runPendingTasks();
        assertThat(stores).hasSize(2);
        assertThat(harness.writer.count()).as("the packet behind them waits too").isZero();
        stores.get(1).complete(null);
        channel.runPendingTasks();
        assertThat(harness.writer.count()).isEqualTo(1);
        harness.writer.write(0).succeed();
        channel.runPendingTasks();
        assertThat(outbound(channel)).containsExactly(0, 0, 0, 1);
        assertThat(channel.config().isAutoRead()).isTrue();
    }
}
