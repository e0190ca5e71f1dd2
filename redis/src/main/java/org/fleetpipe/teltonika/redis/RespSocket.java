package org.fleetpipe.teltonika.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A Redis connection on a blocking socket for the calls of one thread whose replies are long (a
 * consumer group's reads): the calling thread reads the reply itself, straight from its own buffer
 * into the caller's Lettuce {@link CommandOutput}, with the callbacks Lettuce's own decoder makes.
 * No event loop, no hand-off between threads, no buffer per element: for the bridge, Lettuce's
 * decoding of XREADGROUP replies was the largest part of its CPU per record (issue 41 item 4).
 * RESP2 only. Reconnects at the next call after a failure; the failed call throws.
 */
public final class RespSocket implements AutoCloseable {

    /** Deeper than any reply the stream commands give; a guard against a runaway reply. */
    private static final int MAX_DEPTH = 8;

    private final RedisEndpoint endpoint;
    private final int timeoutMillis;
    private final String clientName;
    private final ByteBuf command = Unpooled.buffer(256);
    private byte[] buffer = new byte[64 * 1024];
    /** A view of {@link #buffer} handed to the output, moved element after element. */
    private ByteBuffer view = ByteBuffer.wrap(buffer);
    private int position;
    private int limit;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    /**
     * A connection to {@code endpoint}, made at the first call; {@code timeout} bounds the connect
     * and each reply (longer than any BLOCK the caller asks for).
     */
    public RespSocket(RedisEndpoint endpoint, Duration timeout, String clientName) {
        this.endpoint = endpoint;
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        this.clientName = clientName;
    }

    /**
     * Sends {@code type} with {@code args} and reads its reply into {@code output}: the same call as
     * Lettuce's {@code dispatch}, on this connection.
     *
     * @throws RedisCommandExecutionException when Redis answers with an error
     * @throws RedisConnectionException when Redis cannot be reached or the connection broke (closed;
     *     the next call connects again)
     */
    public <K, V, T> T dispatch(ProtocolKeyword type, CommandOutput<K, V, T> output, CommandArgs<K, V> args) {
        try {
            if (socket == null) {
                connect();
            }
            command.clear();
            writeCommand(type, args);
            out.write(command.array(), command.arrayOffset(), command.readableBytes());
            out.flush();
            element(output, 0);
        } catch (IOException | RuntimeException e) {
            // The reply's rest is unknown: a connection that broke mid-reply cannot be used again.
            closeQuietly();
            if (e instanceof RedisConnectionException refused) {
                throw refused;
            }
            throw new RedisConnectionException("Redis at " + endpoint + ": " + e.getMessage(), e);
        }
        if (output.hasError()) {
            throw new RedisCommandExecutionException(output.getError());
        }
        return output.get();
    }

    @Override
    public void close() {
        closeQuietly();
    }

    private void writeCommand(ProtocolKeyword type, CommandArgs<?, ?> args) {
        byte[] name = type.getBytes();
        command.writeByte('*').writeBytes(Integer.toString(args.count() + 1).getBytes(StandardCharsets.US_ASCII))
                .writeByte('\r').writeByte('\n');
        command.writeByte('$').writeBytes(Integer.toString(name.length).getBytes(StandardCharsets.US_ASCII))
                .writeByte('\r').writeByte('\n').writeBytes(name).writeByte('\r').writeByte('\n');
        args.encode(command);
    }

    private void connect() throws IOException {
        Socket plain = new Socket();
        try {
            plain.setTcpNoDelay(true);
            plain.setKeepAlive(true);
            plain.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), timeoutMillis);
            socket = endpoint.tls() ? tls(plain) : plain;
            socket.setSoTimeout(timeoutMillis);
            in = socket.getInputStream();
            out = socket.getOutputStream();
            position = 0;
            limit = 0;
            login();
        } catch (IOException | RuntimeException e) {
            plain.close();
            socket = null;
            throw e;
        }
    }

    private Socket tls(Socket plain) throws IOException {
        try {
            SSLContext context;
            if (endpoint.verify() == SslVerifyMode.NONE) {
                context = SSLContext.getInstance("TLS");
                context.init(null, InsecureTrustManagerFactory.INSTANCE.getTrustManagers(), null);
            } else {
                context = SSLContext.getDefault();
            }
            SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(plain, endpoint.host(), endpoint.port(),
                    true);
            if (endpoint.verify() == SslVerifyMode.FULL) {
                SSLParameters parameters = tls.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                tls.setSSLParameters(parameters);
            }
            tls.startHandshake();
            return tls;
        } catch (GeneralSecurityException e) {
            throw new IOException("TLS: " + e.getMessage(), e);
        }
    }

    /** AUTH and SELECT as the URL asks, and a name for CLIENT LIST; each answered before the next. */
    private void login() throws IOException {
        if (endpoint.password() != null) {
            if (endpoint.username() != null) {
                simple(true, "AUTH", endpoint.username(), new String(endpoint.password()));
            } else {
                simple(true, "AUTH", new String(endpoint.password()));
            }
        }
        if (endpoint.database() != 0) {
            simple(true, "SELECT", Integer.toString(endpoint.database()));
        }
        if (clientName != null) {
            // Only a label in CLIENT LIST: an ACL user without CLIENT SETNAME still reads.
            simple(false, "CLIENT", "SETNAME", clientName);
        }
    }

    private void simple(boolean required, String... words) throws IOException {
        RespArguments call = new RespArguments(64).command(words.length);
        for (String word : words) {
            call.text(word);
        }
        command.clear();
        call.copyTo(command);
        out.write(command.array(), command.arrayOffset(), command.readableBytes());
        out.flush();
        Status status = new Status();
        element(status, 0);
        if (status.error != null && required) {
            // AUTH's refusal names no secret; said as Redis said it.
            throw new RedisConnectionException("Redis at " + endpoint + " refused " + words[0] + ": " + status.error);
        }
    }

    /**
     * Reads one element at {@code depth} into {@code output} and tells it complete, as Lettuce's
     * decoder does: {@code multi} at an array's start, {@code complete(depth)} after every element.
     */
    private void element(CommandOutput<?, ?, ?> output, int depth) throws IOException {
        if (position >= limit) {
            fill(1);
        }
        byte type = buffer[position];
        switch (type) {
            case '$' -> {
                long length = headerNumber();
                if (length < 0) {
                    output.set((ByteBuffer) null);
                } else {
                    if (length > Integer.MAX_VALUE - 2) {
                        throw new IOException("RESP bulk string of " + length + " bytes");
                    }
                    int size = (int) length;
                    require(size + 2);
                    view.limit(position + size).position(position);
                    output.set(view);
                    view.clear();
                    position += size + 2;
                }
            }
            case '*' -> {
                long count = headerNumber();
                if (depth >= MAX_DEPTH) {
                    throw new IOException("RESP reply nested deeper than " + MAX_DEPTH);
                }
                output.multi((int) Math.max(-1, Math.min(count, Integer.MAX_VALUE)));
                for (long i = 0; i < count; i++) {
                    element(output, depth + 1);
                }
            }
            case ':' -> output.set(headerNumber());
            case '+' -> {
                int lineEnd = line();
                view.limit(lineEnd).position(position + 1);
                output.set(view);
                view.clear();
                position = lineEnd + 2;
            }
            case '-' -> {
                int lineEnd = line();
                output.setError(new String(buffer, position + 1, lineEnd - position - 1, StandardCharsets.UTF_8));
                position = lineEnd + 2;
            }
            default -> throw new IOException("not a RESP2 reply: type byte " + (type & 0xff));
        }
        output.complete(depth);
    }

    /** Reads until the line at {@link #position} is whole; returns where its CR is. */
    private int line() throws IOException {
        int from = position;
        while (true) {
            for (int i = from; i < limit - 1; i++) {
                if (buffer[i] == '\r') {
                    if (buffer[i + 1] != '\n') {
                        throw new IOException("RESP line without LF after CR");
                    }
                    return i;
                }
            }
            int scanned = Math.max(0, limit - 1 - position);
            fill(limit - position + 1);
            from = position + scanned;
        }
    }

    /** Reads until {@code bytes} bytes from {@link #position} are in the buffer. */
    private void require(int bytes) throws IOException {
        if (limit - position < bytes) {
            fill(bytes);
        }
    }

    /**
     * Reads from the socket until at least {@code bytes} from {@link #position} are held, moving
     * what is held to the buffer's start and growing it when it is too small.
     */
    private void fill(int bytes) throws IOException {
        if (position + bytes > buffer.length) {
            int held = limit - position;
            byte[] target = bytes > buffer.length ? new byte[Math.max(bytes, 2 * buffer.length)] : buffer;
            System.arraycopy(buffer, position, target, 0, held);
            if (target != buffer) {
                buffer = target;
                view = ByteBuffer.wrap(buffer);
            }
            position = 0;
            limit = held;
        }
        while (limit - position < bytes) {
            int read = in.read(buffer, limit, buffer.length - limit);
            if (read < 0) {
                throw new IOException("connection closed by Redis");
            }
            limit += read;
        }
    }

    /**
     * The number on the line at {@link #position} after its type byte (a length, a count or an
     * integer), read in the same pass that finds the line's end; moves past the line.
     */
    private long headerNumber() throws IOException {
        int at = position + 1;
        boolean negative = false;
        long value = 0;
        int digits = 0;
        while (true) {
            if (at + 1 >= limit) {
                int offset = at - position;
                fill(offset + 2);
                at = position + offset;
            }
            byte b = buffer[at];
            if (b == '\r') {
                break;
            }
            if (b == '-' && at == position + 1) {
                negative = true;
            } else {
                int digit = b - '0';
                if (digit < 0 || digit > 9 || digits > 18) {
                    throw new IOException("RESP length or integer is not a number");
                }
                value = value * 10 + digit;
                digits++;
            }
            at++;
        }
        if (buffer[at + 1] != '\n') {
            throw new IOException("RESP line without LF after CR");
        }
        if (digits == 0) {
            throw new IOException("RESP length or integer is empty");
        }
        position = at + 2;
        return negative ? -value : value;
    }

    private void closeQuietly() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // Closing a broken connection: nothing left to do.
            }
            socket = null;
        }
    }

    /** A status or error reply (the login's commands). */
    private static final class Status extends CommandOutput<String, String, String> {

        private String error;

        Status() {
            super(io.lettuce.core.codec.StringCodec.UTF8, null);
        }

        @Override
        public void set(ByteBuffer bytes) {
            output = bytes == null ? null : StandardCharsets.UTF_8.decode(bytes).toString();
        }

        @Override
        public void setError(String error) {
            this.error = error;
        }
    }
}
