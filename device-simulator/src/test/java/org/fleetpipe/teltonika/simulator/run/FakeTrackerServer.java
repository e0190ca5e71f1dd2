package org.fleetpipe.teltonika.simulator.run;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.codec.command.CommandFrameEncoder;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;

/** A Teltonika server the test scripts step by step, with blocking sockets on loopback; every read times out. */
final class FakeTrackerServer implements AutoCloseable {

    private static final int TIMEOUT_MILLIS = 15_000;

    private final ServerSocket server;

    FakeTrackerServer() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        server.setSoTimeout(TIMEOUT_MILLIS);
    }

    int port() {
        return server.getLocalPort();
    }

    Session accept() throws IOException {
        return new Session(server.accept());
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    /** What a device sent: an AVL packet or a command reply. */
    record Received(AvlPacket packet, CommandFrame reply) {
        List<Long> timestamps() {
            return packet.records().stream().map(AvlRecord::timestamp).toList();
        }
    }

    /** One device connection. */
    static final class Session implements AutoCloseable {
        private final Socket socket;
        private final DataInputStream in;
        private final OutputStream out;

        Session(Socket socket) throws IOException {
            this.socket = socket;
            socket.setSoTimeout(TIMEOUT_MILLIS);
            socket.setTcpNoDelay(true);
            this.in = new DataInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        }

        String readLogin() throws IOException {
            byte[] imei = new byte[in.readUnsignedShort()];
            in.readFully(imei);
            return new String(imei, StandardCharsets.US_ASCII);
        }

        void answerLogin(boolean accepted) throws IOException {
            out.write(accepted ? 1 : 0);
            out.flush();
        }

        Received readFrame() throws IOException {
            byte[] header = new byte[8];
            in.readFully(header);
            int bodyLength = ((header[4] & 0xFF) << 24) | ((header[5] & 0xFF) << 16) | ((header[6] & 0xFF) << 8)
                    | (header[7] & 0xFF);
            byte[] frame = new byte[8 + bodyLength + 4];
            System.arraycopy(header, 0, frame, 0, 8);
            in.readFully(frame, 8, bodyLength + 4);
            ByteBuf buf = Unpooled.wrappedBuffer(frame);
            try {
                DataFrame data = (DataFrame) new TcpFrameReader(DecodeLimits.DEFAULTS).tryRead(buf);
                try {
                    return data.codec().isAvl()
                            ? new Received(new AvlPacketDecoder(DecodeLimits.DEFAULTS).decode(data.body()), null)
                            : new Received(null, new CommandFrameDecoder(DecodeLimits.DEFAULTS).decode(data.body()));
                } finally {
                    data.release();
                }
            } finally {
                buf.release();
            }
        }

        void ack(int records) throws IOException {
            out.write(new byte[] {(byte) (records >>> 24), (byte) (records >>> 16), (byte) (records >>> 8),
                    (byte) records});
            out.flush();
        }

        void send(CommandFrame command) throws IOException {
            ByteBuf buf = CommandFrameEncoder.writeTcpFrame(Unpooled.buffer(), command);
            try {
                byte[] bytes = new byte[buf.readableBytes()];
                buf.readBytes(bytes);
                out.write(bytes);
                out.flush();
            } finally {
                buf.release();
            }
        }

        /** True once the device closed its end; false if it sent more bytes instead. */
        boolean closedByDevice() throws IOException {
            return in.read() == -1;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
