package org.fleetpipe.teltonika.server.command;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameEncoder;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends queued commands to the devices connected here, one at a time per device (replies carry no
 * id, so the next Codec 12/14 response belongs to the command in flight), and ends each with the
 * reply, a nACK or a timeout; after a timeout the device gets a quiet gap before its next command,
 * so a late reply is not credited to that one. Woken by a login, by an enqueue on any replica (the events channel),
 * by the previous command's end, and by the {@link CommandSweep}. All per-device state lives on the device channel's event loop.
 */
public final class CommandDispatcher implements DeviceCommands {

    private static final Logger LOG = LoggerFactory.getLogger(CommandDispatcher.class);
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    private final CommandStore store;
    private final SessionTable sessions;
    private final CommandSettings settings;
    private final IngestionMetrics metrics;
    private final org.fleetpipe.teltonika.server.lifecycle.PendingCalls pending;
    private final UnsolicitedMessages unsolicited;
    private final CommandReplies replies;

    /**
     * {@code pending} tracks hand-backs and finishes, so a clean stop waits for them;
     * {@code unsolicited} bounds what devices send on their own; {@code replies} hears every reply
     * to a command sent here (the model learned from {@code getver}).
     */
    public CommandDispatcher(CommandStore store, SessionTable sessions, CommandSettings settings,
                             IngestionMetrics metrics, org.fleetpipe.teltonika.server.lifecycle.PendingCalls pending,
                             UnsolicitedMessages unsolicited, CommandReplies replies) {
        this.store = store;
        this.replies = replies;
        this.unsolicited = unsolicited;
        this.pending = pending;
        this.sessions = sessions;
        this.settings = settings;
        this.metrics = metrics;
    }

    /** An enqueue (or a hand-back) for {@code imeiText} happened somewhere: drain it if it is connected here. */
    public void wake(String imeiText) {
        Channel channel = sessions.channelOf(imeiText);
        if (channel != null) {
            Imei imei = new Imei(imeiText);
            channel.eventLoop().execute(() -> drain(imei, channel));
        }
    }

    @Override
    public void loggedIn(Imei imei, Channel channel) {
        drain(imei, channel);
    }

    private void drain(Imei imei, Channel channel) {
        DeviceSession session = DeviceSession.of(channel);
        if (!channel.isActive() || sessions.channelOf(imei) != channel) {
            return;
        }
        if (session.takingCommand()) {
            // The take under way may have read the queue before the enqueue behind this wake.
            session.drainAgain(true);
            return;
        }
        if (session.commandInFlight() != null) {
            return;
        }
        long quiet = session.quietLeftNanos();
        if (quiet > 0) {
            if (!session.quietWakeScheduled()) {
                session.quietWakeScheduled(true);
                channel.eventLoop().schedule(() -> {
                    session.quietWakeScheduled(false);
                    drain(imei, channel);
                }, quiet, TimeUnit.NANOSECONDS);
            }
            return;
        }
        session.takingCommand(true);
        store.take(imei).whenComplete((taken, error) -> channel.eventLoop().execute(() -> {
            session.takingCommand(false);
            boolean again = session.takeDrainAgain();
            if (error != null) {
                metrics.redisError("command-take");
                LOG.warn("could not take the next command imei={}: {}", imei, error.toString());
                return;
            }
            if (taken.isPresent()) {
                // Its end drains again, which covers the wake.
                send(imei, channel, session, taken.get());
            } else if (again) {
                drain(imei, channel);
            }
        }));
    }

    private void send(Imei imei, Channel channel, DeviceSession session, TakenCommand command) {
        if (!channel.isActive()) {
            requeue(imei, command);
            return;
        }
        CommandFrame frame = command.codec() == 14 ? CommandFrame.codec14Command(imei.value(), command.text())
                : CommandFrame.codec12Command(command.text());
        ByteBuf out = CommandFrameEncoder.writeTcpFrame(channel.alloc().buffer(), frame);
        channel.writeAndFlush(out);
        session.commandSent(command, channel.eventLoop().schedule(() -> timedOut(imei, channel, command),
                settings.replyTimeout().toMillis(), TimeUnit.MILLISECONDS));
        metrics.command("sent");
        LOG.info("command sent id={} imei={} codec={}", command.id(), imei, command.codec());
    }

    private void timedOut(Imei imei, Channel channel, TakenCommand command) {
        DeviceSession session = DeviceSession.of(channel);
        if (session.commandInFlight() != command) {
            return;
        }
        session.commandDone();
        // Replies carry no id: one that comes late must find no command in flight, not the next one.
        session.quietUntil(System.nanoTime() + settings.quietGap().toNanos());
        metrics.command("timeout");
        LOG.info("command failed id={} imei={} reason=timeout after {}", command.id(), imei, settings.replyTimeout());
        finish(imei, channel, command, false, "timeout", null);
    }

    @Override
    public CompletionStage<Void> frame(Imei imei, Channel channel, CommandFrame frame) {
        // Codec 13 and 15 are the device's own messages, never a reply (the handler has already
        // refused a Codec 15 naming another IMEI).
        if (frame.codec() == CodecId.CODEC_13 || frame.codec() == CodecId.CODEC_15) {
            return keepMessage(imei, channel, frame, frame.timestampSeconds());
        }
        if (frame.type() != CommandFrame.TYPE_RESPONSE && frame.type() != CommandFrame.TYPE_NACK) {
            if (unsolicited.mayLog(channel)) {
                LOG.info("ignoring a command frame of type 0x{} from imei={} (at most one such line per device "
                        + "and minute)", Integer.toHexString(frame.type()), imei);
            }
            return DONE;
        }
        DeviceSession session = DeviceSession.of(channel);
        Object inFlight = session.commandDone();
        if (!(inFlight instanceof TakenCommand command)) {
            // Nobody waits for it (a late reply after a timeout, or the device's own notice): keep it.
            return keepMessage(imei, channel, frame, -1);
        }
        boolean nack = frame.isNack();
        metrics.command(nack ? "nack" : "replied");
        LOG.info("command {} id={} imei={}", nack ? "failed (nack: wrong IMEI)" : "replied", command.id(), imei);
        if (!nack) {
            replies.replied(imei, command, frame.text());
        }
        return finish(imei, channel, command, !nack, nack ? "nack" : null, nack ? null : frame.text());
    }

    private CompletionStage<Void> finish(Imei imei, Channel channel, TakenCommand command, boolean replied,
                                         String reason, String text) {
        return pending.track(() -> store.finish(command, imei, replied, reason, text)).handle((ok, error) -> {
            if (error != null) {
                metrics.redisError("command-finish");
                LOG.warn("could not store the end of command id={} imei={}: {}", command.id(), imei, error.toString());
            } else if (!ok && text != null) {
                // It was handed back meanwhile (the janitor, after this instance changed its id):
                // the reply is still the device's answer, so it is kept as a message.
                store.deviceMessage(imei, "reply-" + command.id(), -1, unsolicited.stored(text));
            }
            channel.eventLoop().execute(() -> drain(imei, channel));
            return null;
        });
    }

    private CompletionStage<Void> keepMessage(Imei imei, Channel channel, CommandFrame frame, long timestampSeconds) {
        if (!unsolicited.mayStore(channel)) {
            metrics.command("device-message-dropped");
            if (unsolicited.mayLog(channel)) {
                LOG.info("dropping messages of imei={}: more than {} per minute (MAX_DEVICE_MESSAGES_PER_MINUTE); "
                        + "at most one such line per device and minute", imei, unsolicited.perMinute());
            }
            return DONE;
        }
        metrics.command("device-message");
        return store.deviceMessage(imei, frame.codec().label(), timestampSeconds, unsolicited.stored(frame.text()))
                .handle((id, error) -> {
                    if (error != null) {
                        metrics.redisError("device-message");
                    }
                    return null;
                });
    }

    @Override
    public void disconnected(Imei imei, Channel channel) {
        if (DeviceSession.of(channel).commandDone() instanceof TakenCommand command) {
            LOG.info("connection of imei={} ended before the reply to command id={}: back to its queue", imei,
                    command.id());
            // Only this send is handed back: if a newer connection already sent the command again,
            // the script leaves it alone.
            requeue(imei, command);
        }
    }

    private void requeue(Imei imei, TakenCommand command) {
        pending.track(() -> store.requeue(imei, command)).whenComplete((outcome, error) -> {
            if (error != null) {
                metrics.redisError("command-requeue");
                LOG.warn("could not hand a command of imei={} back to its queue; the janitor does when this "
                        + "instance is gone: {}", imei, error.toString());
            } else if (outcome.failed() > 0) {
                metrics.command("attempts", outcome.failed());
                LOG.info("command failed id={} imei={} reason=attempts: sent {} time(s), the connection ended "
                        + "before a reply each time", command.id(), imei, command.attempt());
            }
        });
    }
}
