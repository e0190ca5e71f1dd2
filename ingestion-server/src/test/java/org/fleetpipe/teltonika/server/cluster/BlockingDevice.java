package org.fleetpipe.teltonika.server.cluster;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/** A tracker over a plain socket, one blocking step at a time; enough for lifecycle tests. */
final class BlockingDevice implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;

    private BlockingDevice(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = new DataInputStream(socket.getInputStream());
    }

    static BlockingDevice connect(InetSocketAddress server) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", server.getPort()), 5000);
        socket.setSoTimeout(10_000);
        return new BlockingDevice(socket);
    }

    /** The n-th test IMEI: 14 digits and a correct check digit, so the default Luhn check accepts it. */
    static String imei(int n) {
        String body = String.format("35209308%06d", n);
        for (int check = 0; check < 10; check++) {
            if (org.fleetpipe.teltonika.codec.Imei.luhnValid(body + check)) {
                return body + check;
            }
        }
        throw new IllegalStateException("no check digit for " + body);
    }

    static BlockingDevice connect(int port) throws IOException {
        return connect(new InetSocketAddress("127.0.0.1", port));
    }

    /** Sends the IMEI frame; returns the server's answer byte (1 accepted, 0 refused). */
    int login(String imei) throws IOException {
        byte[] digits = imei.getBytes(StandardCharsets.US_ASCII);
        out.write(new byte[] {(byte) (digits.length >> 8), (byte) digits.length});
        out.write(digits);
        out.flush();
        return in.readUnsignedByte();
    }

    /** Sends a whole frame and returns the 4-byte ACK. */
    int send(byte[] frame) throws IOException {
        out.write(frame);
        out.flush();
        return in.readInt();
    }

    /** True once the server closed the connection (read sees end of stream). */
    boolean closedByServer() throws IOException {
        int previous = socket.getSoTimeout();
        socket.setSoTimeout(50);
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (EOFException e) {
            return true;
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
