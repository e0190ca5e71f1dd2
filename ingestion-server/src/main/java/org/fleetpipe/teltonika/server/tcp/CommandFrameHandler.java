package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.server.command.DeviceCommands;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Codec 12/13/14 frames from a device: decoded and handed to the command side (a reply, a nACK,
 * or a message of the device's own). They are never acknowledged with a record count, but the
 * next frame waits for what this one caused to be stored.
 */
final class CommandFrameHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(CommandFrameHandler.class);

    private final CommandFrameDecoder decoder;
    private final FrameRejector rejector;
    private final DeviceCommands commands;
    private final IngestionMetrics metrics;

    CommandFrameHandler(CommandFrameDecoder decoder, FrameRejector rejector, DeviceCommands commands,
                        IngestionMetrics metrics) {
        this.decoder = decoder;
        this.rejector = rejector;
        this.commands = commands;
        this.metrics = metrics;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof DataFrame frame)) {
            ReferenceCountUtil.release(msg);
            Disconnector.close(ctx.channel(), DisconnectReason.PROTOCOL_VIOLATION, "unexpected " + msg);
            return;
        }
        DeviceSession session = DeviceSession.of(ctx.channel());
        CompletionStage<Void> handled;
        try {
            metrics.frameReceived(frame.codec());
            CommandFrame command = decoder.decode(frame.body());
            LOG.debug("command frame imei={} codec={} type=0x{}", session.imeiText(), command.codec().label(),
                    Integer.toHexString(command.type()));
            handled = commands.frame(session.imei(), ctx.channel(), command);
        } catch (CodecException e) {
            rejector.reject(ctx.channel(), e, frame.content());
            return;
        } finally {
            frame.release();
        }
        // The next frame only once this one's write is done: a device sending messages is slowed by
        // Redis like one sending records, instead of piling up writes.
        Channel channel = ctx.channel();
        if (handled.toCompletableFuture().isDone()) {
            FrameSequencer.frameDone(channel);
        } else {
            handled.whenComplete((ok, error) -> channel.eventLoop().execute(() -> FrameSequencer.frameDone(channel)));
        }
    }
}
