package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.fleetpipe.teltonika.server.limits.AddressRateLimit;
import org.fleetpipe.teltonika.server.limits.NetworkKey;

/**
 * Paces the connections this instance takes on, across its device listeners: at most
 * {@code perSecond} a second in all (a tenth's share per tenth of a second) and
 * {@code perNetworkPerSecond} from one source network (/24, /64), so a reconnect herd's logins do
 * not take the event loops and Redis from the devices already connected, and one network's connects
 * do not take the pace from the others'.
 *
 * <p>A connection over the pace is not closed (that would make the device back off and retry, a
 * reconnect storm): it is accepted and waits, unregistered and unread, in its network's queue
 * ({@link WaitingAccepts}), and the queues are let go in turn every tenth, so a login from a quiet
 * network passes the next tenth whatever other networks send. Closing stays for what is abusive: a
 * network with {@code maxWaitingPerNetwork} connections waiting already has the next one closed at
 * once; when {@code maxWaiting} wait in all, a newcomer whose network holds its fair part of them
 * (the bound over the networks waiting) is closed, another takes the place of the newest connection
 * of the network with the most waiting, or, when none has more than its own, the listeners stop
 * accepting until fewer wait (the rest waits in the kernel's accept queue). All of
 * it runs on the accept thread the listeners share.
 *
 * <p>The network's share is what it is sure of, not a cap while the instance has room: each tenth the
 * waiting networks first take their shares in turn, then the room left of the pace in all goes round
 * the networks still waiting. Either way a connection goes only while its network has a place left
 * under the pre-login cap: handed on past it, it would be closed there (pre-login-limit), a
 * reconnect for a device whose network's logins are merely slow, so it waits here instead. A
 * cutover behind one carrier NAT takes the whole pace when nobody else connects, and a quiet
 * network's login still passes the next tenth when ten others flood.
 */
@ChannelHandler.Sharable
public final class AcceptRateLimit extends ChannelInboundHandlerAdapter {

    private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Connections whose remote address is not an IP address queue together. */
    private static final InetAddress NO_NETWORK = InetAddress.getLoopbackAddress();

    /** What the pacer tells the metrics and the log. */
    public interface Events {
        /** A connection waits for its turn. */
        void deferred();

        /** The listeners stopped accepting: {@code maxWaiting} connections wait. */
        void paused();

        /** A connection closed by the pacer: {@code reason} "network-share" or "waiting-full". */
        void refused(SocketAddress remote, String reason);
    }

    /** How many more connections of a network may be handed on now without being closed for it. */
    @FunctionalInterface
    public interface NetworkRoom {
        /** No bound but the paces. */
        NetworkRoom UNBOUNDED = network -> Integer.MAX_VALUE;

        int room(InetAddress network);

        /** One connection of {@code network} handed on: it takes a place before it arrives there. */
        default void handedOn(InetAddress network) {
        }
    }

    private final int perSlice;
    private final AddressRateLimit perNetwork;
    private final WaitingAccepts waiting;
    private final NetworkRoom networkRoom;
    private final Events events;
    private long sliceStart = Long.MIN_VALUE;
    private int handedOn;
    private boolean tickScheduled;
    /** The listeners paused because the waiting set is full. */
    private final java.util.Set<Channel> paused = new java.util.HashSet<>();

    /**
     * @param perSecond            0 (no pace in all) or at least 10
     * @param perNetworkPerSecond  0 (no share per network) or more; a tenth of a second's burst
     * @param maxWaitingPerNetwork connections of one network that may wait; more are closed
     * @param maxWaiting           connections that may wait in all
     * @param networkRoom          how many more of a network its pre-login cap takes now; a connection
     *                             goes only while its network has a place, within its share or beyond
     */
    public AcceptRateLimit(int perSecond, int perNetworkPerSecond, int maxWaitingPerNetwork, int maxWaiting,
                           NetworkRoom networkRoom, Events events) {
        this(perSecond, perNetworkPerSecond, maxWaitingPerNetwork, maxWaiting, networkRoom, events, System::nanoTime);
    }

    /** With {@code shareClock} for the networks' shares instead of {@link System#nanoTime()}, for tests. */
    AcceptRateLimit(int perSecond, int perNetworkPerSecond, int maxWaitingPerNetwork, int maxWaiting,
                    NetworkRoom networkRoom, Events events, LongSupplier shareClock) {
        if (perSecond != 0 && perSecond < 10) {
            throw new IllegalArgumentException("at least 10 accepts a second, got " + perSecond);
        }
        this.perSlice = perSecond / 10;
        this.perNetwork = networkShare(perNetworkPerSecond, shareClock);
        this.waiting = new WaitingAccepts(Math.max(0, maxWaitingPerNetwork), Math.max(1, maxWaiting));
        this.networkRoom = networkRoom;
        this.events = events;
    }

    /**
     * A network's share as a tenth of a second's burst, refilled evenly: handed on a second's burst at
     * once, a network's connections would all be logging in together, past its cap of connections not
     * logged in yet (MAX_PRE_LOGIN_CONNECTIONS_PER_ADDRESS), and closed there instead.
     */
    private static AddressRateLimit networkShare(int perSecond, LongSupplier clock) {
        if (perSecond <= 0) {
            return new AddressRateLimit(0, Duration.ofSeconds(1), clock);
        }
        int burst = Math.max(1, (perSecond + 9) / 10);
        return new AddressRateLimit(burst, Duration.ofNanos(burst * 1_000_000_000L / perSecond), clock);
    }

    /** Connections accepted and waiting for their turn now. Any thread (a gauge); approximate. */
    public int waiting() {
        return waiting.size();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object child) {
        if (!(child instanceof Channel connection)) {
            ctx.fireChannelRead(child);
            return;
        }
        InetAddress network = connection.remoteAddress() instanceof InetSocketAddress remote
                && remote.getAddress() != null ? NetworkKey.of(remote.getAddress()) : NO_NETWORK;
        long now = ctx.executor().ticker().nanoTime();
        if (!waiting.has(network) && roomInAll(now) && hasPlace(network) && perNetwork.tryAcquire(network)) {
            handedOn++;
            networkRoom.handedOn(network);
            ctx.fireChannelRead(connection);
            return;
        }
        WaitingAccepts.Waiting entry = new WaitingAccepts.Waiting(ctx, connection, network);
        switch (waiting.offer(network, entry)) {
            case REFUSED -> {
                refuse(connection, "network-share");
                return;
            }
            case REFUSED_FULL -> {
                refuse(connection, "waiting-full");
                return;
            }
            case QUEUED_IN_PLACE -> refuse(waiting.displaced().connection(), "waiting-full");
            case QUEUED_FULL -> pause(ctx.channel());
            case QUEUED -> { }
        }
        events.deferred();
        scheduleTick(ctx, now);
    }

    /** Whether the pace in all has room in the tenth at {@code now}. */
    private boolean roomInAll(long now) {
        if (sliceStart == Long.MIN_VALUE || now - sliceStart >= SLICE_NANOS) {
            sliceStart = now;
            handedOn = 0;
        }
        return perSlice == 0 || handedOn < perSlice;
    }

    private void scheduleTick(ChannelHandlerContext ctx, long now) {
        if (tickScheduled) {
            return;
        }
        tickScheduled = true;
        long untilNextSlice = Math.max(1, sliceStart + SLICE_NANOS - now);
        ctx.executor().schedule(() -> tick(ctx), untilNextSlice, TimeUnit.NANOSECONDS);
    }

    /** A tenth's turn: lets the waiting go, network by network, as far as the paces allow. */
    private void tick(ChannelHandlerContext ctx) {
        tickScheduled = false;
        long now = ctx.executor().ticker().nanoTime();
        waiting.release(Integer.MAX_VALUE,
                network -> roomInAll(now) && hasPlace(network) && perNetwork.tryAcquire(network), this::handOn);
        if (perSlice > 0 && waiting.size() > 0 && roomInAll(now)) {
            // Without a pace in all there is no room to share out: the shares are all there is.
            waiting.release(Integer.MAX_VALUE, network -> roomInAll(now) && hasPlace(network), this::handOn);
        }
        if (!waiting.full() && !paused.isEmpty()) {
            for (Channel listener : paused) {
                listener.config().setAutoRead(true);
            }
            paused.clear();
        }
        if (waiting.size() > 0) {
            scheduleTick(ctx, now);
        }
    }

    /**
     * Whether {@code network} has a pre-login place for one more connection; each hand-on counts
     * against it at once ({@link NetworkRoom#handedOn}), before the connection arrives there.
     */
    private boolean hasPlace(InetAddress network) {
        return networkRoom.room(network) > 0;
    }

    private void handOn(WaitingAccepts.Waiting w) {
        handedOn++;
        if (w.listener().channel().isActive()) {
            networkRoom.handedOn(w.network());
            w.listener().fireChannelRead(w.connection());
        } else {
            w.connection().unsafe().closeForcibly();
        }
    }

    private void pause(Channel listener) {
        if (listener.config().isAutoRead()) {
            listener.config().setAutoRead(false);
            paused.add(listener);
            events.paused();
        }
    }

    private void refuse(Channel connection, String reason) {
        // Not registered: closed here, as Netty's acceptor closes a child it cannot register.
        connection.unsafe().closeForcibly();
        events.refused(connection.remoteAddress(), reason);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // The listener closed: its waiting connections will never be handed on.
        waiting.removeAll(ctx, w -> w.connection().unsafe().closeForcibly());
        paused.remove(ctx.channel());
        ctx.fireChannelInactive();
    }
}
