package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.registry.testing.InMemoryConnectionRegistry;
import java.time.Duration;
import org.fleetpipe.teltonika.server.admission.Admission;
import org.fleetpipe.teltonika.server.admission.NewImeiLimit;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.capture.CaptureMetrics;
import org.fleetpipe.teltonika.server.capture.CaptureSink;
import org.fleetpipe.teltonika.server.command.DeviceCommands;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.limits.DeviceRateLimits;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.lifecycle.PendingCalls;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.fleetpipe.teltonika.server.testing.FakeTelemetryWriter;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.RecordingDeadLetters;

/**
 * The real device pipeline on EmbeddedChannels, with fakes only for our own interfaces
 * (telemetry writer, dead letters, connection registry) and real metrics and session table, so a test can look at
 * everything the pipeline decided.
 */
final class PipelineHarness implements AutoCloseable {

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final IngestionMetrics metrics = new IngestionMetrics(registry);
    final FakeTelemetryWriter writer = new FakeTelemetryWriter();
    final RecordingDeadLetters deadLetters = new RecordingDeadLetters();
    final SessionTable sessions = new SessionTable();
    final InMemoryConnectionRegistry devices = new InMemoryConnectionRegistry("test-1");
    final PendingCalls inFlight = new PendingCalls();
    final ServerSettings settings;
    /** The device rate budgets' clock, moved by the tests. */
    final AtomicLong rateNanos = new AtomicLong();
    /** The support captures' taps, over the sink the test gave. */
    final CaptureTaps captureTaps;
    private final TcpChannelInitializer initializer;
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    PipelineHarness() {
        this(Map.of());
    }

    PipelineHarness(Map<String, ?> overrides) {
        this(overrides, Admission.OPEN);
    }

    PipelineHarness(Map<String, ?> overrides, Admission admission) {
        this(overrides, admission, DeviceCommands.NONE);
    }

    PipelineHarness(Map<String, ?> overrides, Admission admission, DeviceCommands commands) {
        this(overrides, admission, commands, CaptureSink.NONE);
    }

    PipelineHarness(Map<String, ?> overrides, Admission admission, DeviceCommands commands, CaptureSink captures) {
        settings = SettingsLoader.load(overrides);
        captureTaps = new CaptureTaps(captures, new CaptureMetrics(registry), sessions);
        initializer = new TcpChannelInitializer(new PipelineServices(settings, metrics, writer, deadLetters, sessions,
                devices, inFlight, commands, admission, NewImeiLimit.OFF, new RefusalLog(Duration.ofMinutes(1)),
                new DeviceRateLimits(settings.devices().hostile().deviceRates(), 1000, rateNanos::get),
                captureTaps));
    }

    /** A new device connection, active as if just accepted. */
    EmbeddedChannel connect() {
        EmbeddedChannel channel = new EmbeddedChannel(initializer);
        channels.add(channel);
        return channel;
    }

    /** A new connection this harness does not keep (nor close): the caller finishes it. */
    EmbeddedChannel connectUntracked() {
        return new EmbeddedChannel(initializer);
    }

    /** A connection that has logged in with {@code imei}; the {@code 01} answer is already consumed. */
    EmbeddedChannel loggedIn(String imei) {
        EmbeddedChannel channel = connect();
        send(channel, Frames.login(imei));
        assertThat(outbound(channel)).as("login answer").containsExactly(0x01);
        return channel;
    }

    /** Delivers {@code bytes} as one socket read, in a pooled buffer so a leak of it would be reported. */
    static void send(EmbeddedChannel channel, byte[] bytes) {
        assertThat(channel.isOpen()).as("sending into a closed channel would leak the buffer").isTrue();
        ByteBuf buf = channel.alloc().buffer(bytes.length).writeBytes(bytes);
        channel.writeInbound(buf);
    }

    /** Delivers {@code bytes} one read per byte, the worst fragmentation TCP can produce. */
    static void sendByteByByte(EmbeddedChannel channel, byte[] bytes) {
        for (byte b : bytes) {
            send(channel, new byte[] {b});
        }
    }

    /** Everything the server wrote so far, concatenated; the buffers are released. */
    static byte[] outbound(EmbeddedChannel channel) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Object msg;
        while ((msg = channel.readOutbound()) != null) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                out.writeBytes(ByteBufUtil.getBytes(buf));
            } finally {
                buf.release();
            }
        }
        return out.toByteArray();
    }

    double rejected(String reason) {
        return count("teltonika.frames.rejected", "reason", reason);
    }

    double closed(String reason) {
        return count("teltonika.connections.closed", "reason", reason);
    }

    double logins(String result, String reason) {
        Counter c = registry.find("teltonika.logins").tag("result", result).tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    double redisErrors(String op) {
        return count("teltonika.redis.errors", "op", op);
    }

    double recordsWritten(String codec) {
        return count("teltonika.records.written", "codec", codec);
    }

    double pings() {
        Counter c = registry.find("teltonika.pings.received").counter();
        return c == null ? 0 : c.count();
    }

    double count(String name, String tag, String value) {
        Counter c = registry.find(name).tag(tag, value).counter();
        return c == null ? 0 : c.count();
    }

    /** Closes every channel, releasing whatever is still queued, and rethrows any pipeline exception. */
    @Override
    public void close() {
        for (EmbeddedChannel channel : channels) {
            channel.finishAndReleaseAll();
        }
    }
}
