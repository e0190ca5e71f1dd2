package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.command.DeviceCommands;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Codec 12/13/14/15 frames from a device: decoded and handed to the command side (a reply, a nACK,
 * or a message of the device's own). They are never acknowledged with a record count (Codec 13 and
 * 15 are one-way: Teltonika documents no answer to them), but the next frame waits for what this
 * one caused to be stored. A Codec 15 frame names its IMEI: one that is not the session's is
 * dead-lettered and never stored as this device's, and the connection stays (the device's own
 * records are still its own).
 */
final class CommandFrameHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(CommandFrameHandler.class);
    /** Dead-letter and metric reason of a Codec 15 frame naming another IMEI than the session's. */
    static final String CODEC15_IMEI_MISMATCH = "codec15-imei-mismatch";

    private final CommandFrameDecoder decoder;
    private final FrameRejector rejector;
    private final DeviceCommands commands;
    private final IngestionMetrics metrics;
    private final RefusalLog refusals;

    CommandFrameHandler(CommandFrameDecoder decoder, FrameRejector rejector, DeviceCommands commands,
                        IngestionMetrics metrics, RefusalLog refusals) {
        this.decoder = decoder;
        this.rejector = rejector;
        this.commands = commands;
        this.metrics = metrics;
        this.refusals = refusals;
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
            handled = isOtherDevice(command, session)
                    ? refuseOtherImei(ctx.channel(), session, command, frame)
                    : commands.frame(session.imei(), ctx.channel(), command);
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

    private static boolean isOtherDevice(CommandFrame command, DeviceSession session) {
        return command.codec() == CodecId.CODEC_15 && !command.imei().equals(session.imeiText());
    }

    /** Counted, dead-lettered (its whole frame) and logged at most once per device and interval. */
    private CompletionStage<Void> refuseOtherImei(Channel channel, DeviceSession session, CommandFrame command,
                                                  DataFrame frame) {
        String detail = "Codec 15 frame names imei " + command.imei() + ", the connection logged in as "
                + session.imeiText();
        refusals.refused(CODEC15_IMEI_MISMATCH + "/" + session.imeiText(), "Codec 15 message refused imei={} "
                + "remote={} reason={} claimed={}: dead-lettered, not stored (at most one such line per device and "
                + "interval)", session.imeiText(), session.remote(), CODEC15_IMEI_MISMATCH, command.imei());
        return rejector.refuseKeepingConnection(channel, CODEC15_IMEI_MISMATCH, detail, frame.content());
    }
}
