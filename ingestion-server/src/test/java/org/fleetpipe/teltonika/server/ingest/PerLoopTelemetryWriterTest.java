package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A packet goes to the writer of the event loop it was read on; from elsewhere, to each in turn. */
class PerLoopTelemetryWriterTest {

    private static final Imei IMEI = new Imei("356307042441013");
    private static final AvlPacket PACKET = new RandomAvl(3).packet(CodecId.CODEC_8, 1);

    private final DefaultEventLoop a = new DefaultEventLoop();
    private final DefaultEventLoop b = new DefaultEventLoop();
    private final List<String> calls = new ArrayList<>();

    @AfterEach
    void stop() {
        a.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        b.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private TelemetryWriter recording(String name) {
        return (imei, packet, rx) -> {
            synchronized (calls) {
                calls.add(name);
            }
            return CompletableFuture.completedFuture(packet.size());
        };
    }

    private PerLoopTelemetryWriter writer() {
        Map<EventExecutor, TelemetryWriter> byLoop = new LinkedHashMap<>();
        byLoop.put(a, recording("a"));
        byLoop.put(b, recording("b"));
        return new PerLoopTelemetryWriter(byLoop);
    }

    @Test
    void write_whenOnALoopWithAWriter_thenThatLoopsWriter() throws Exception {
        PerLoopTelemetryWriter writer = writer();

        b.submit(() -> writer.write(IMEI, PACKET, 1L)).get(5, TimeUnit.SECONDS);
        a.submit(() -> writer.write(IMEI, PACKET, 1L)).get(5, TimeUnit.SECONDS);
        b.submit(() -> writer.write(IMEI, PACKET, 1L)).get(5, TimeUnit.SECONDS);

        assertThat(calls).containsExactly("b", "a", "b");
    }

    @Test
    void write_whenOffTheLoops_thenTheWritersInTurn() {
        PerLoopTelemetryWriter writer = writer();

        for (int i = 0; i < 4; i++) {
            writer.write(IMEI, PACKET, 1L);
        }

        assertThat(calls).containsExactly("a", "b", "a", "b");
    }
}
