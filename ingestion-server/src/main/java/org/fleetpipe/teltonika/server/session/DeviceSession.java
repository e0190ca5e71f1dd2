package org.fleetpipe.teltonika.server.session;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.ingest.ResendGuard;
import org.fleetpipe.teltonika.server.limits.NetworkKey;

/** Per-connection state, kept on the channel. Touched only from the channel's event loop. */
public final class DeviceSession {

    private static final AttributeKey<DeviceSession> KEY = AttributeKey.valueOf(DeviceSession.class, "session");

    private final SocketAddress remote;
    private final long connectedAt;
    private Imei imei;
    private long loggedInAt;
    private long lastRecordAt;
    private DisconnectReason closeReason;
    private Object commandInFlight;
    private java.util.concurrent.Future<?> commandTimeout;
    private boolean takingCommand;
    private boolean drainAgain;
    private long quietUntilNanos;
    private boolean quietWakeScheduled;
    private ResendGuard resendGuard;

    private DeviceSession(SocketAddress remote, long connectedAt) {
        this.remote = remote;
        this.connectedAt = connectedAt;
    }

    /** The session of {@code channel}, created on first use. */
    public static DeviceSession of(Channel channel) {
        DeviceSession session = channel.attr(KEY).get();
        if (session == null) {
            session = new DeviceSession(channel.remoteAddress(), System.currentTimeMillis());
            DeviceSession raced = channel.attr(KEY).setIfAbsent(session);
            if (raced != null) {
                session = raced;
            }
        }
        return session;
    }

    public boolean isLoggedIn() {
        return imei != null;
    }

    public void loggedIn(Imei imei, long at) {
        this.imei = imei;
        this.loggedInAt = at;
        this.resendGuard = ResendGuard.forConnection(remote instanceof InetSocketAddress address
                ? NetworkKey.of(address.getAddress()) : null);
    }

    /** What the telemetry writer knows of this connection's packets (from the login on). */
    public ResendGuard resendGuard() {
        return resendGuard == null ? ResendGuard.everyPacket() : resendGuard;
    }

    /** The IMEI, or null before login. */
    public Imei imei() {
        return imei;
    }

    /** The IMEI text for logs and dead letters; "-" before login. */
    public String imeiText() {
        return imei == null ? "-" : imei.value();
    }

    public SocketAddress remote() {
        return remote;
    }

    public long connectedAt() {
        return connectedAt;
    }

    public long loggedInAt() {
        return loggedInAt;
    }

    public long lastRecordAt() {
        return lastRecordAt;
    }

    public void recordsStored(long at) {
        lastRecordAt = at;
    }

    /** The command sent on this connection and not answered yet, or null (the command side's type). */
    public Object commandInFlight() {
        return commandInFlight;
    }

    public void commandSent(Object command, java.util.concurrent.Future<?> timeout) {
        this.commandInFlight = command;
        this.commandTimeout = timeout;
    }

    /** Forgets the command in flight and cancels its timeout; returns it, or null. */
    public Object commandDone() {
        Object command = commandInFlight;
        commandInFlight = null;
        if (commandTimeout != null) {
            commandTimeout.cancel(false);
            commandTimeout = null;
        }
        return command;
    }

    /** True while a take of the next command is under way, so only one runs at a time. */
    public boolean takingCommand() {
        return takingCommand;
    }

    public void takingCommand(boolean taking) {
        this.takingCommand = taking;
    }

    /**
     * Notes a wake that came while a take was under way: that take may have looked at the queue
     * before the enqueue that sent the wake, so it must be followed by another.
     */
    public void drainAgain(boolean again) {
        this.drainAgain = again;
    }

    /** Returns and clears the wake noted by {@link #drainAgain(boolean)}. */
    public boolean takeDrainAgain() {
        boolean again = drainAgain;
        drainAgain = false;
        return again;
    }

    /** No next command before {@code nanoTime}: a late reply may still come for the one that timed out. */
    public void quietUntil(long nanoTime) {
        quietUntilNanos = nanoTime;
    }

    /** Nanoseconds left of the quiet gap, or 0. */
    public long quietLeftNanos() {
        return Math.max(0, quietUntilNanos - System.nanoTime());
    }

    /** True while a drain waits for the end of the quiet gap, so only one waits. */
    public boolean quietWakeScheduled() {
        return quietWakeScheduled;
    }

    public void quietWakeScheduled(boolean scheduled) {
        this.quietWakeScheduled = scheduled;
    }

    /** Keeps the first reason: the cause, not the consequences. */
    public void closing(DisconnectReason reason) {
        if (closeReason == null) {
            closeReason = reason;
        }
    }

    public DisconnectReason closeReason() {
        return closeReason == null ? DisconnectReason.PEER_CLOSED : closeReason;
    }
}
