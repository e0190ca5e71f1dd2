package org.fleetpipe.teltonika.simulator.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.codec.Acks;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.codec.command.CommandFrameEncoder;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameWriter;
import org.fleetpipe.teltonika.simulator.device.Backoff;
import org.fleetpipe.teltonika.simulator.device.CommandResponder;
import org.fleetpipe.teltonika.simulator.device.DeviceSettings;
import org.fleetpipe.teltonika.simulator.device.EncodedSize;
import org.fleetpipe.teltonika.simulator.device.RecordGenerator;
import org.fleetpipe.teltonika.simulator.report.SimulatorStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tracker on a TCP session: connects, logs in with its IMEI, sends packets and answers
 * Codec 12/14 commands. Any trouble (refused login, no ACK in time, lost connection) closes the
 * session and it reconnects after a backoff, then resends what was not acknowledged.
 */
public final class TcpDevice extends SimulatedDevice {

    private static final Logger LOG = LoggerFactory.getLogger(TcpDevice.class);
    private static final CommandFrameDecoder COMMANDS = new CommandFrameDecoder(DecodeLimits.DEFAULTS);

    private final Bootstrap bootstrap;
    private java.util.List<InetSocketAddress> servers;
    /** Index of the server to connect to next; it moves on after every failure, as a load balancer would. */
    private int serverIndex;
    private final InetSocketAddress source;
    private final Backoff backoff;
    private final CommandResponder responder;

    /** Test hook: a handler put first in each session's pipeline, so it sees the raw bytes both ways. */
    private Supplier<? extends ChannelHandler> tap;
    private Channel channel;
    private boolean loggedIn;
    private ScheduledFuture<?> loginTimer;
    private ScheduledFuture<?> reconnectTimer;

    /** @param source local address to connect from, or null for the system's choice */
    public TcpDevice(String imei, RecordGenerator generator, DeviceSettings settings, EventLoop loop,
                     SimulatorStats stats, InetSocketAddress server, InetAddress source, long seed) {
        super(imei, generator, settings, loop, stats);
        this.servers = java.util.List.of(server);
        this.source = source == null ? null : new InetSocketAddress(source, 0);
        this.backoff = new Backoff(settings.backoffMin(), settings.backoffMax(), new Random(seed));
        this.responder = new CommandResponder(imei, System::currentTimeMillis, this::storedRecords);
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(ClientTransport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                        (int) Math.min(Integer.MAX_VALUE, settings.ackTimeout().toMillis()))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tap != null) {
                            ch.pipeline().addLast(tap.get());
                        }
                        ch.pipeline().addLast(new ServerReplyDecoder(), new TcpDeviceHandler(TcpDevice.this));
                    }
                });
    }

    @Override
    protected void open() {
        if (isClosed()) {
            return;
        }
        InetSocketAddress server = servers.get(Math.floorMod(serverIndex, servers.size()));
        ChannelFuture connect = source == null ? bootstrap.connect(server) : bootstrap.connect(server, source);
        connect.addListener((ChannelFuture f) -> onLoop(() -> connected(f)));
    }

    /**
     * Connect to {@code others} too, starting with the {@code first}-th, and move to the next one
     * after each failure: what a load balancer in front of several replicas does for a device.
     */
    public TcpDevice withServers(java.util.List<InetSocketAddress> others, int first) {
        this.servers = java.util.List.copyOf(others);
        this.serverIndex = first;
        return this;
    }

    /**
     * Puts a handler from {@code tap} first in every session's pipeline (before {@link #start}): it
     * sees the bytes as they leave for and arrive from the socket. For tests that check what really
     * went over the wire against what the device counted.
     */
    public TcpDevice tappedBy(Supplier<? extends ChannelHandler> tap) {
        this.tap = tap;
        return this;
    }

    private void connected(ChannelFuture f) {
        if (!f.isSuccess()) {
            serverIndex++;
            stats.connectFailed();
            LOG.debug("imei={} connect failed: {}", imei, f.cause().toString());
            scheduleReconnect();
            return;
        }
        if (isClosed()) {
            f.channel().close();
            return;
        }
        channel = f.channel();
        ByteBuf login = Acks.writeLoginRequest(channel.alloc().buffer(2 + imei.length()), imei);
        channel.writeAndFlush(login).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        Channel session = channel;
        loginTimer = loop.schedule(() -> {
            LOG.debug("imei={} no login answer within {}", imei, settings.ackTimeout());
            session.close();
        }, settings.ackTimeout().toNanos(), TimeUnit.NANOSECONDS);
    }

    void loginAnswered(Channel from, boolean accepted) {
        if (from != channel) {
            return;
        }
        cancel(loginTimer);
        if (!accepted) {
            stats.loginRefused();
            LOG.debug("imei={} login refused", imei);
            from.close();
            return;
        }
        loggedIn = true;
        backoff.reset();
        stats.connected();
        trySend();
    }

    void ackArrived(Channel from, long records) {
        if (from == channel && loggedIn) {
            ackReceived(records);
        }
    }

    void commandReceived(Channel from, DataFrame frame) {
        CommandFrame command;
        try {
            if (from != channel || frame.codec().isAvl()) {
                return;
            }
            command = COMMANDS.decode(frame.body());
        } catch (CodecException e) {
            LOG.warn("imei={} unreadable command frame: {}", imei, e.getMessage());
            return;
        } finally {
            frame.release();
        }
        responder.answer(command).ifPresent(reply -> {
            ByteBuf out = CommandFrameEncoder.writeTcpFrame(from.alloc().buffer(), reply);
            from.writeAndFlush(out).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            stats.commandAnswered();
        });
    }

    void disconnected(Channel from) {
        if (from != channel) {
            return;
        }
        channel = null;
        cancel(loginTimer);
        if (loggedIn) {
            loggedIn = false;
            stats.disconnected();
        }
        packetLost();
        if (!isClosed()) {
            serverIndex++;
            scheduleReconnect();
        }
    }

    @Override
    protected boolean readyToSend() {
        return loggedIn && channel != null && channel.isActive();
    }

    @Override
    protected void send() {
        ByteBuf frame = channel.alloc().directBuffer(inFlightBodyBytes() + EncodedSize.TCP_FRAME_OVERHEAD);
        int start = TcpFrameWriter.begin(frame);
        writeInFlightBody(frame);
        TcpFrameWriter.end(frame, start);
        // The void promise spares a promise and a listener per packet; a failed write then reaches
        // TcpDeviceHandler.exceptionCaught, which closes the session, and disconnected() puts the
        // records back.
        channel.writeAndFlush(frame, channel.voidPromise());
    }

    @Override
    protected void ackTimedOut() {
        // A late ACK on the same session could not be told from the next packet's: start afresh.
        LOG.debug("imei={} no ACK within {}, reconnecting", imei, settings.ackTimeout());
        if (channel != null) {
            channel.close();
        }
    }

    @Override
    protected int maxBodyBytes() {
        return settings.maxPacketBytes() - EncodedSize.TCP_FRAME_OVERHEAD;
    }

    @Override
    protected void closeTransport() {
        cancel(loginTimer);
        cancel(reconnectTimer);
        if (channel != null) {
            channel.close();
        }
    }

    private void scheduleReconnect() {
        if (isClosed()) {
            return;
        }
        stats.reconnect();
        reconnectTimer = loop.schedule(this::open, backoff.nextDelayNanos(), TimeUnit.NANOSECONDS);
    }

    private void onLoop(Runnable task) {
        if (loop.inEventLoop()) {
            task.run();
        } else {
            loop.execute(task);
        }
    }
}
