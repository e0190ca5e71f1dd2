package org.fleetpipe.teltonika.server.testing;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;

/**
 * A tracker on a real, blocking socket. Reads wait at most {@link #READ_TIMEOUT_MS}, far longer
 * than any answer takes, so a hang fails the test instead of stalling the build.
 */
public final class DeviceClient implements AutoCloseable {

    public static final int READ_TIMEOUT_MS = 20_000;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    private DeviceClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Connects to {@code port} on 127.0.0.1. */
    public static DeviceClient connect(int port) throws IOException {
        return connect(new InetSocketAddress("127.0.0.1", port));
    }

    public static DeviceClient connect(InetSocketAddress server) throws IOException {
        return connectFrom(null, server);
    }

    /**
     * Connects to {@code server} from {@code local} (null: any), so that tests can play several
     * hosts: on Linux every 127.x.y.z is a loopback address.
     */
    public static DeviceClient connectFrom(java.net.InetAddress local, InetSocketAddress server) throws IOException {
        Socket socket = new Socket();
        try {
            if (local != null) {
                socket.bind(new InetSocketAddress(local, 0));
            }
            socket.connect(server, 10_000);
            socket.setSoTimeout(READ_TIMEOUT_MS);
            socket.setTcpNoDelay(true);
            return new DeviceClient(socket);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** Sends the IMEI handshake; returns the server's answer byte, or -1 if it closed instead. */
    public int login(String imei) throws IOException {
        send(Frames.login(imei));
        return in.read();
    }

    public void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** One byte, such as a login answer sent before the device waited for it; -1 when closed. */
    public int readByte() throws IOException {
        return in.read();
    }

    /** The next 4-byte record-count ACK. */
    public long readAck() throws IOException {
        return in.readInt() & 0xFFFF_FFFFL;
    }

    /**
     * Reads until the server closes; returns the bytes it sent before closing (empty when it
     * sent nothing). A reset counts as a close: the kernel answers with RST when the server
     * closes with unread bytes in its buffer.
     */
    public byte[] readUntilClosed() throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try {
            int b;
            while ((b = in.read()) != -1) {
                got.write(b);
            }
        } catch (SocketException e) {
            if (!String.valueOf(e.getMessage()).contains("reset")) {
                throw e;
            }
        } catch (EOFException e) {
            // closed
        }
        return got.toByteArray();
    }

    /** Reads one whole data frame (preamble, length, body, CRC), such as a command from the server. */
    public byte[] readFrame() throws IOException {
        byte[] header = in.readNBytes(8);
        if (header.length < 8) {
            throw new EOFException("connection closed before a frame");
        }
        int length = ((header[4] & 0xFF) << 24) | ((header[5] & 0xFF) << 16) | ((header[6] & 0xFF) << 8)
                | (header[7] & 0xFF);
        byte[] rest = in.readNBytes(length + 4);
        byte[] frame = new byte[8 + rest.length];
        System.arraycopy(header, 0, frame, 0, 8);
        System.arraycopy(rest, 0, frame, 8, rest.length);
        return frame;
    }

    /** Sends a whole frame and returns its 4-byte ACK. */
    public long sendAndReadAck(byte[] frame) throws IOException {
        send(frame);
        return readAck();
    }

    /** True once the server closed the connection; checks without blocking for long. */
    public boolean closedByServer() throws IOException {
        return closedByServer(50);
    }

    /** As {@link #closedByServer()}, waiting at most {@code waitMillis} for a close to show. */
    public boolean closedByServer(int waitMillis) throws IOException {
        int previous = socket.getSoTimeout();
        socket.setSoTimeout(waitMillis);
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            // A reset is a close too.
            return true;
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout(previous);
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
