package org.fleetpipe.teltonika.server.it;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import org.fleetpipe.teltonika.server.testing.Frames;

/**
 * A tracker on a real, blocking socket. Reads wait at most {@link #READ_TIMEOUT_MS}, far longer
 * than any answer takes, so a hang fails the test instead of stalling the build.
 */
final class DeviceClient implements AutoCloseable {

    static final int READ_TIMEOUT_MS = 20_000;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    private DeviceClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    static DeviceClient connect(InetSocketAddress server) throws IOException {
        Socket socket = new Socket();
        try {
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
    int login(String imei) throws IOException {
        send(Frames.login(imei));
        return in.read();
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** One byte, such as a login answer sent before the device waited for it; -1 when closed. */
    int readByte() throws IOException {
        return in.read();
    }

    /** The next 4-byte record-count ACK. */
    long readAck() throws IOException {
        return in.readInt() & 0xFFFF_FFFFL;
    }

    /**
     * Reads until the server closes; returns the bytes it sent before closing (empty when it
     * sent nothing). A reset counts as a close: the kernel answers with RST when the server
     * closes with unread bytes in its buffer.
     */
    byte[] readUntilClosed() throws IOException {
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

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
