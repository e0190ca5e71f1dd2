package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.Acks;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.frame.LoginFrame;
import org.fleetpipe.teltonika.registry.ConnectionRegistry;
import org.fleetpipe.teltonika.server.admission.Admission;
import org.fleetpipe.teltonika.server.admission.NewImeiLimit;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.command.DeviceCommands;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.DisconnectReason;
import org.fleetpipe.teltonika.server.session.Disconnector;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.fleetpipe.teltonika.server.tls.ClientCertificates;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The login barrier: before login only an IMEI frame is accepted, and only once. A refused IMEI
 * gets {@code 0x00} and the connection closes. An accepted one is entered in the local session
 * table first (so an older local connection of the same device closes without releasing the new
 * claim), then claimed in the registry; only when the claim is stored does the device get
 * {@code 0x01}, and the read-idle timeout replaces the login deadline.
 */
final class LoginHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(LoginHandler.class);
    private static final String NEW_IMEI_LIMIT = "new-imei-limit";
    private static final String CERTIFICATE_MISMATCH = "certificate-mismatch";

    private final boolean luhnCheck;
    private final long readIdleMillis;
    private final SessionTable sessions;
    private final ConnectionRegistry registry;
    private final DeviceCommands commands;
    private final Admission admission;
    private final NewImeiLimit newImeis;
    private final RefusalLog refusals;
    private final IngestionMetrics metrics;
    private final CaptureTaps captures;
    private final boolean logSessions;

    LoginHandler(boolean luhnCheck, long readIdleMillis, SessionTable sessions, ConnectionRegistry registry,
                 DeviceCommands commands, Admission admission, NewImeiLimit newImeis, RefusalLog refusals,
                 IngestionMetrics metrics, CaptureTaps captures, boolean logSessions) {
        this.luhnCheck = luhnCheck;
        this.readIdleMillis = readIdleMillis;
        this.sessions = sessions;
        this.registry = registry;
        this.commands = commands;
        this.admission = admission;
        this.newImeis = newImeis;
        this.refusals = refusals;
        this.metrics = metrics;
        this.captures = captures;
        this.logSessions = logSessions;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        DeviceSession session = DeviceSession.of(ctx.channel());
        if (session.isLoggedIn()) {
            if (msg instanceof LoginFrame) {
                metrics.frameRejected("second-login");
                Disconnector.close(ctx.channel(), DisconnectReason.PROTOCOL_VIOLATION, "a second login frame");
                return;
            }
            ctx.fireChannelRead(msg);
            return;
        }
        if (!(msg instanceof LoginFrame login)) {
            ReferenceCountUtil.release(msg);
            metrics.frameRejected("not-logged-in");
            Disconnector.close(ctx.channel(), DisconnectReason.PROTOCOL_VIOLATION, "data before login");
            return;
        }
        Imei imei;
        try {
            imei = Imei.parse(login.text(), luhnCheck);
        } catch (CodecException e) {
            boolean luhn = e.reason() == CodecException.Reason.IMEI_CHECK_DIGIT;
            String key = luhn ? login.text() : RefusalLog.addressKey(session.remote());
            refuse(ctx, session, luhn ? "luhn" : "malformed", key, e.getMessage()
                    + (luhn ? " (IMEI_LUHN_CHECK=false turns this check off)" : ""));
            return;
        }
        Channel channel = ctx.channel();
        String certified = ClientCertificates.commonName(channel);
        if (certified != null && !certified.equals(imei.value())) {
            // The certificate vouches for one device only (TLS_CLIENT_AUTH); nothing is asked of Redis.
            refuse(ctx, session, CERTIFICATE_MISMATCH, imei.value(), "the client certificate's CN is "
                    + (certified.isEmpty() ? "missing or not single" : ClientCertificates.shown(certified))
                    + ", not the IMEI of the login");
            return;
        }
        InetAddress address = channel.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        admission.refusal(imei).thenCompose(refusal -> refusal != null ? CompletableFuture.completedFuture(refusal)
                : newImeis.admits(address, imei).thenApply(admitted -> admitted ? null : NEW_IMEI_LIMIT))
                .whenComplete((refusal, error) -> channel.eventLoop().execute(() -> {
            if (error != null) {
                metrics.login(false, "registry-error");
                metrics.redisError("admission");
                Disconnector.close(channel, DisconnectReason.REDIS_FAILURE, "admission lookup failed: " + error);
            } else if (refusal != null) {
                // Made-up IMEIs are many, their network one: one log line per network, not per IMEI.
                boolean byNetwork = refusal.equals(NEW_IMEI_LIMIT);
                refuse(ctx, session, refusal, byNetwork ? RefusalLog.networkKey(channel.remoteAddress()) : imei.value(),
                        refusalDetail(refusal));
            } else if (channel.isActive()) {
                admitted(ctx, session, imei, login.text());
            }
        }));
    }

    private static String refusalDetail(String refusal) {
        return switch (refusal) {
            case "denied" -> "the IMEI is on devices:denied";
            case NEW_IMEI_LIMIT -> "too many IMEIs new to the fleet from this network (/24, /64): its budget "
                    + "(MAX_NEW_IMEIS_BURST_PER_ADDRESS, refilled at MAX_NEW_IMEIS_PER_ADDRESS_PER_MINUTE) is used up";
            default -> "DEVICE_ADMISSION=allow-list and the IMEI is not on devices:allowed";
        };
    }

    private void admitted(ChannelHandlerContext ctx, DeviceSession session, Imei imei, String loginText) {
        Channel channel = ctx.channel();
        session.loggedIn(imei, System.currentTimeMillis());
        sessions.register(imei, channel);
        CompletableFuture<String> claim = registry.claim(imei, String.valueOf(session.remote()),
                channel.id().asLongText()).toCompletableFuture();
        // Asked again right behind the claim, on the same Redis connection, so Redis answers it after
        // the claim: a deny (or an allow-list removal) stored between the first lookup and the claim
        // shows here. One stored after the claim finds the registry naming this instance, and its
        // 'deny' or 'revoke' message finds this session (registered above). RevocationSweeper covers
        // what slips through (a lost message, a claim re-sent after NOSCRIPT).
        CompletableFuture<String> recheck = admission.refusal(imei).toCompletableFuture();
        // Whether the device is captured, asked behind the claim too: a capture started before this
        // answers here; one started after the claim finds the registry naming this instance, and its
        // 'capture' message finds this session. One lookup per login, no cache to go stale.
        CompletableFuture<Long> capture = captures.activeUntil(imei.value()).toCompletableFuture();
        claim.whenComplete((previous, error) -> recheck.whenComplete((refusal, recheckError) ->
                capture.whenComplete((captureUntil, captureError) -> channel.eventLoop().execute(() -> {
                    if (recheckError != null) {
                        // The first lookup admitted it; this one only closes a narrow race, which
                        // RevocationSweeper covers too, so a failure here does not refuse the device.
                        metrics.redisError("admission-recheck");
                        LOG.debug("admission re-check failed imei={}: {}", imei.value(), recheckError.toString());
                    }
                    if (captureError != null) {
                        // A support tool: its failure never refuses a device.
                        metrics.redisError("capture-lookup");
                    }
                    claimed(ctx, session, previous, error, recheckError == null ? refusal : null,
                            captureError == null ? captureUntil : null, loginText);
                }))));
    }

    private void claimed(ChannelHandlerContext ctx, DeviceSession session, String previous, Throwable error,
                         String lateRefusal, Long captureUntil, String loginText) {
        Channel channel = ctx.channel();
        if (error != null) {
            metrics.login(false, "registry-error");
            metrics.redisError("registry-claim");
            Disconnector.close(channel, DisconnectReason.REDIS_FAILURE, "registry claim failed: " + error);
            return;
        }
        if (!channel.isActive()) {
            return;
        }
        if (lateRefusal != null) {
            // Closing releases the claim just stored (the session is logged in and registered).
            metrics.registryClaim(previous != null && !previous.isEmpty());
            refuse(ctx, session, lateRefusal, session.imeiText(), "refused while logging in: " + lateRefusal);
            return;
        }
        // Leaving the pre-login gate frees its place and cancels the login deadline.
        ctx.pipeline().replace(HandlerNames.PRE_LOGIN, HandlerNames.IDLE,
                new IdleStateHandler(readIdleMillis, 0, 0, TimeUnit.MILLISECONDS));
        metrics.login(true, "ok");
        metrics.registryClaim(previous != null && !previous.isEmpty());
        if (logSessions) {
            LOG.info("device logged in imei={} remote={}{}", session.imeiText(), session.remote(),
                    previous == null ? "" : " (registry named " + previous + " before)");
        }
        if (captureUntil != null) {
            // Before the answer, so the capture holds the login and its answer too.
            captures.startAtLogin(channel, session.imeiText(), loginText, captureUntil);
        }
        ctx.writeAndFlush(Acks.writeLogin(ctx.alloc().buffer(1), true));
        FrameSequencer.frameDone(channel);
        commands.loggedIn(session.imei(), channel);
    }

    /** {@code 0x00} and close; one log line per {@code key} per interval, every refusal counted. */
    private void refuse(ChannelHandlerContext ctx, DeviceSession session, String reason, String key, String detail) {
        metrics.login(false, reason);
        refusals.refused(reason + "/" + key, "login refused remote={} reason={} detail={}", session.remote(), reason,
                detail);
        session.closing(DisconnectReason.LOGIN_REFUSED);
        ctx.writeAndFlush(Acks.writeLogin(ctx.alloc().buffer(1), false)).addListener(ChannelFutureListener.CLOSE);
    }
}
