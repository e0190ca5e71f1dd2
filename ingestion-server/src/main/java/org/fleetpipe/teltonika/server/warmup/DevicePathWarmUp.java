package org.fleetpipe.teltonika.server.warmup;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.config.WarmUpSettings;
import org.fleetpipe.teltonika.server.tcp.TcpChannelInitializer;

/**
 * Sends synthetic devices through the real device pipeline (the same initializer, decoders and
 * handlers as a listener's connections, on in-memory channels) before the listeners open, so the
 * JIT has compiled the device path when a reconnecting fleet arrives at a fresh replica: each device
 * logs in, sends packets of every codec and size in turn with a command answer now and then, reads
 * its ACKs, and disconnects. Everything that would leave the pipeline goes to stand-ins that keep
 * nothing ({@link WarmUpServices}): no Redis, no registry, no metrics, no session log lines.
 */
public final class DevicePathWarmUp {

    /** Packets per synthetic device: logins and disconnects are warmed too, as a herd's first packets are. */
    private static final int PACKETS_PER_DEVICE = 50;
    private static final int COMMAND_ANSWER_EVERY = 16;

    /** What a warm-up did. */
    public record Result(int devices, int packets, long records, Duration took, boolean timedOut) {
    }

    private final ServerSettings settings;
    private final WarmUpSettings warmUp;

    public DevicePathWarmUp(ServerSettings settings) {
        this.settings = settings;
        this.warmUp = settings.devices().warmUp();
    }

    /** Runs the warm-up on the calling thread, bounded by its packets and its time. */
    public Result run() {
        long started = System.nanoTime();
        long deadline = started + warmUp.maxTime().toNanos();
        DiscardingTelemetryWriter writer = new DiscardingTelemetryWriter();
        TcpChannelInitializer pipeline = new TcpChannelInitializer(WarmUpServices.of(settings, writer));
        SyntheticTraffic traffic = new SyntheticTraffic();
        int devices = 0;
        int packets = 0;
        boolean timedOut = false;
        while (packets < warmUp.packets()) {
            if (System.nanoTime() - deadline > 0) {
                timedOut = true;
                break;
            }
            packets += device(pipeline, traffic, devices, Math.min(PACKETS_PER_DEVICE, warmUp.packets() - packets));
            devices++;
        }
        return new Result(devices, packets, writer.records(), Duration.ofNanos(System.nanoTime() - started), timedOut);
    }

    /** One synthetic device's session; returns the packets acknowledged (fewer when one was not). */
    private static int device(TcpChannelInitializer pipeline, SyntheticTraffic traffic, int n, int packets) {
        EmbeddedChannel channel = new EmbeddedChannel(pipeline);
        try {
            if (exchange(channel, SyntheticTraffic.login(SyntheticTraffic.imei(n))) != 1) {
                return 0;
            }
            int acknowledged = 0;
            for (int i = 0; i < packets && channel.isActive(); i++) {
                int kind = (n + i) % traffic.packetKinds();
                if (exchange(channel, traffic.packet(kind)) != 4) {
                    // Held (a rate budget smaller than the warm-up) or refused: this device is done.
                    break;
                }
                acknowledged++;
                if (i % COMMAND_ANSWER_EVERY == COMMAND_ANSWER_EVERY - 1) {
                    exchange(channel, traffic.commandAnswer());
                }
            }
            return acknowledged;
        } finally {
            channel.close();
            channel.runPendingTasks();
            channel.finishAndReleaseAll();
        }
    }

    /** Writes {@code frame} as one socket read, runs what it scheduled, and returns the bytes answered. */
    private static int exchange(EmbeddedChannel channel, byte[] frame) {
        if (!channel.isActive()) {
            return -1;
        }
        ByteBuf read = channel.alloc().buffer(frame.length).writeBytes(frame);
        channel.writeInbound(read);
        channel.runPendingTasks();
        int answered = 0;
        Object out;
        while ((out = channel.readOutbound()) != null) {
            if (out instanceof ByteBuf buf) {
                answered += buf.readableBytes();
            }
            ReferenceCountUtil.release(out);
        }
        // Nothing the pipeline passes on is kept: a frame that reached the channel's tail is dropped.
        Object in;
        while ((in = channel.readInbound()) != null) {
            ReferenceCountUtil.release(in);
        }
        return answered;
    }
}
