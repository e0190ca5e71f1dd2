package org.fleetpipe.teltonika.simulator.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.udp.UdpAck;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.codec.udp.UdpPacketEncoder;
import org.fleetpipe.teltonika.simulator.device.Backoff;
import org.fleetpipe.teltonika.simulator.device.DeviceSettings;
import org.fleetpipe.teltonika.simulator.device.EncodedSize;
import org.fleetpipe.teltonika.simulator.device.RecordGenerator;
import org.fleetpipe.teltonika.simulator.report.SimulatorStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tracker sending UDP datagrams from its own socket. Every datagram carries the IMEI; an ACK
 * counts only if its packet ids match the datagram in flight, and a datagram without an ACK in
 * time is sent again (with new ids, so a late ACK of the old one is not mistaken for it).
 */
public final class UdpDevice extends SimulatedDevice {

    private static final Logger LOG = LoggerFactory.getLogger(UdpDevice.class);

    private final Bootstrap bootstrap;
    private final InetSocketAddress server;
    private final InetSocketAddress source;
    private final Backoff backoff;

    private Channel channel;
    private int nextPacketId;
    private int nextAvlPacketId;
    private int inFlightPacketId = -1;
    private int inFlightAvlPacketId = -1;
    private ScheduledFuture<?> retryTimer;
    /** After an ACK timeout, sending waits for the backoff even if new records come in meanwhile. */
    private boolean holdingForRetry;

    /** @param source local address to send from, or null for the wildcard address */
    public UdpDevice(String imei, RecordGenerator generator, DeviceSettings settings, EventLoop loop,
                     SimulatorStats stats, InetSocketAddress server, InetAddress source, long seed) {
        super(imei, generator, settings, loop, stats);
        this.server = server;
        this.source = source == null ? new InetSocketAddress(0) : new InetSocketAddress(source, 0);
        Random random = new Random(seed);
        this.backoff = new Backoff(settings.backoffMin(), settings.backoffMax(), random);
        this.nextPacketId = random.nextInt(0x10000);
        this.bootstrap = new Bootstrap()
                .group(loop)
                .channel(ClientTransport.datagramChannel())
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(new UdpDeviceHandler(UdpDevice.this));
                    }
                });
    }

    @Override
    protected void open() {
        if (isClosed()) {
            return;
        }
        bootstrap.bind(source).addListener((ChannelFuture f) -> loop.execute(() -> bound(f)));
    }

    private void bound(ChannelFuture f) {
        if (!f.isSuccess()) {
            stats.connectFailed();
            LOG.warn("imei={} cannot bind a UDP socket to {}: {}", imei, source, f.cause().toString());
            stats.reconnect();
            retryTimer = loop.schedule(this::open, backoff.nextDelayNanos(), TimeUnit.NANOSECONDS);
            return;
        }
        if (isClosed()) {
            f.channel().close();
            return;
        }
        channel = f.channel();
        stats.connected();
        trySend();
    }

    void datagramReceived(DatagramPacket datagram) {
        if (!server.equals(datagram.sender())) {
            return;
        }
        UdpAck ack = UdpAck.read(datagram.content());
        if (ack == null) {
            LOG.debug("imei={} ignored a datagram that is not an ACK", imei);
            return;
        }
        if (ack.packetId() != inFlightPacketId || ack.avlPacketId() != inFlightAvlPacketId) {
            stats.unexpectedAck();
            return;
        }
        inFlightPacketId = -1;
        inFlightAvlPacketId = -1;
        backoff.reset();
        ackReceived(ack.records());
    }

    @Override
    protected boolean readyToSend() {
        return channel != null && channel.isActive() && !holdingForRetry;
    }

    @Override
    protected void send() {
        AvlPacket packet = inFlightPacket();
        inFlightPacketId = nextPacketId;
        inFlightAvlPacketId = nextAvlPacketId;
        nextPacketId = (nextPacketId + 1) & 0xFFFF;
        nextAvlPacketId = (nextAvlPacketId + 1) & 0xFF;
        UdpPacket udp = new UdpPacket(inFlightPacketId, inFlightAvlPacketId, imei, packet);
        ByteBuf out = channel.alloc().buffer(EncodedSize.udpHeader(imei)
                + EncodedSize.body(packet.codec(), packet.records()));
        try {
            UdpPacketEncoder.writeDatagram(out, udp);
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
        // A failed send needs no handling of its own: no ACK comes, and the timeout resends.
        channel.writeAndFlush(new DatagramPacket(out, server));
    }

    @Override
    protected void ackTimedOut() {
        inFlightPacketId = -1;
        inFlightAvlPacketId = -1;
        LOG.debug("imei={} no UDP ACK within {}, resending", imei, settings.ackTimeout());
        holdingForRetry = true;
        retryTimer = loop.schedule(() -> {
            holdingForRetry = false;
            trySend();
        }, backoff.nextDelayNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    protected int maxBodyBytes() {
        return settings.maxPacketBytes() - EncodedSize.udpHeader(imei);
    }

    @Override
    protected void closeTransport() {
        cancel(retryTimer);
        if (channel != null) {
            channel.close();
            channel = null;
            stats.disconnected();
        }
    }
}
