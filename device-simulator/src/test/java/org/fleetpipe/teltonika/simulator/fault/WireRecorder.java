package org.fleetpipe.teltonika.simulator.fault;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.LoginFrame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;

/**
 * Reads both directions of every device session, first in its pipeline (so with no change to its
 * timing): the records of every frame a device put on the wire, and which of them a server's ACK
 * answered (a device has one packet in flight, so an ACK answers the oldest unanswered frame of
 * its session). What the servers really acknowledged is then known apart from what the simulator
 * believes was acknowledged: a record the simulator counts but no server ACKed is the simulator's
 * fault; one a server ACKed and did not store is the server's.
 */
final class WireRecorder {

    private static final AvlPacketDecoder PACKETS = new AvlPacketDecoder(DecodeLimits.DEFAULTS);

    private final Set<String> acked = ConcurrentHashMap.newKeySet();
    private final Set<String> sent = ConcurrentHashMap.newKeySet();
    private final Map<String, List<String>> events = new ConcurrentHashMap<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final long startedAt = System.nanoTime();
    private final List<String> marks = Collections.synchronizedList(new ArrayList<>());

    /** A handler for one new session: {@code Simulation.tapConnections(recorder::tap)}. */
    ChannelHandler tap() {
        return new Tap();
    }

    /** {imei:ts} of every record some server ACKed, as seen on the wire. */
    Set<String> acked() {
        return acked;
    }

    /** {imei:ts} of every record a device put on the wire at least once. */
    Set<String> sent() {
        return sent;
    }

    /** What went over the wire for one device, in order: frames, ACKs, closes, per connection. */
    List<String> events(String imei) {
        List<String> log = events.get(imei);
        if (log == null) {
            return List.of();
        }
        synchronized (log) {
            return List.copyOf(log);
        }
    }

    /** Notes a step of the test on the same clock as the devices' events. */
    void mark(String step) {
        marks.add(String.format("%8.3fs %s", (System.nanoTime() - startedAt) / 1e9, step));
    }

    List<String> marks() {
        synchronized (marks) {
            return List.copyOf(marks);
        }
    }

    private void log(String imei, String line) {
        List<String> log = events.computeIfAbsent(imei, i -> Collections.synchronizedList(new ArrayList<>()));
        log.add(String.format("%8.3fs %s", (System.nanoTime() - startedAt) / 1e9, line));
    }

    /** One session, seen from the device's side of its socket; runs on the device's event loop. */
    private final class Tap extends ChannelDuplexHandler {
        private final String id = "c" + connections.incrementAndGet();
        private final TcpFrameReader frames = new TcpFrameReader(DecodeLimits.DEFAULTS);
        private final ByteBuf fromDevice = Unpooled.buffer();
        private final ByteBuf fromServer = Unpooled.buffer();
        private final ArrayDeque<List<Long>> unanswered = new ArrayDeque<>();
        private String imei = "?";
        private boolean loginAnswered;
        private boolean broken;

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof ByteBuf out && !broken && fromDevice.refCnt() > 0) {
                fromDevice.writeBytes(out, out.readerIndex(), out.readableBytes());
                parseDevice();
            }
            ctx.write(msg, promise);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf in && !broken && fromServer.refCnt() > 0) {
                fromServer.writeBytes(in, in.readerIndex(), in.readableBytes());
                parseServer();
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            log(imei, id + " closed, " + unanswered.size() + " frame(s) unanswered");
            fromDevice.release();
            fromServer.release();
            ctx.fireChannelInactive();
        }

        private void parseDevice() {
            try {
                Frame frame;
                while ((frame = frames.tryRead(fromDevice)) != null) {
                    if (frame instanceof LoginFrame login) {
                        imei = login.text();
                        log(imei, id + " login");
                    } else if (frame instanceof DataFrame data) {
                        try {
                            List<Long> timestamps = new ArrayList<>();
                            for (AvlRecord r : PACKETS.decode(data.body()).records()) {
                                timestamps.add(r.timestamp());
                                sent.add(imei + ":" + r.timestamp());
                            }
                            unanswered.add(timestamps);
                            log(imei, id + " SEND " + timestamps.size() + " " + timestamps.get(0) + ".."
                                    + timestamps.get(timestamps.size() - 1));
                        } finally {
                            data.release();
                        }
                    }
                }
                fromDevice.discardReadBytes();
            } catch (RuntimeException e) {
                broken = true;
                log(imei, id + " unreadable from device: " + e);
            }
        }

        private void parseServer() {
            if (!loginAnswered && fromServer.isReadable()) {
                loginAnswered = true;
                log(imei, id + " login answer " + fromServer.readUnsignedByte());
            }
            while (fromServer.readableBytes() >= 4) {
                long word = fromServer.getUnsignedInt(fromServer.readerIndex());
                if (word == 0) {
                    // A command frame: these runs send none; stop reading this direction.
                    broken = true;
                    log(imei, id + " command frame from server, recorder stops reading");
                    return;
                }
                fromServer.skipBytes(4);
                List<Long> answered = unanswered.poll();
                if (answered == null) {
                    log(imei, id + " ACK " + word + " with nothing unanswered");
                } else if (answered.size() != word) {
                    log(imei, id + " ACK " + word + " for a frame of " + answered.size());
                } else {
                    answered.forEach(ts -> acked.add(imei + ":" + ts));
                    log(imei, id + " ACK " + word + " " + answered.get(0) + ".." + answered.get(answered.size() - 1));
                }
            }
            fromServer.discardReadBytes();
        }
    }
}
