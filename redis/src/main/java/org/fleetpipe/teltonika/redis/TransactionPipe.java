package org.fleetpipe.teltonika.redis;

import io.lettuce.core.SslVerifyMode;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis connection of its own on one event loop that runs whole {@code MULTI ... EXEC} blocks
 * written by the caller as RESP bytes, and tells each block's caller only whether every command in
 * it succeeded. The replies are walked in the buffer they arrived in, never turned into objects,
 * and the outcome is told on the same event loop that sent the block: for the telemetry writes,
 * where a general client's per-command objects and thread hand-offs cost the server more CPU per
 * record than Redis spends storing it. A block runs atomically: no other client's command runs
 * inside it, and a block whose connection drops before its EXEC arrives does not run at all.
 * Not ready while (re)connecting; the caller then takes another path.
 */
public final class TransactionPipe implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionPipe.class);
    private static final byte[] MULTI = "*1\r\n$5\r\nMULTI\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EXEC = "*1\r\n$4\r\nEXEC\r\n".getBytes(StandardCharsets.US_ASCII);
    /** The connections' name in CLIENT LIST. */
    public static final String CLIENT_NAME = "teltonika-telemetry";
    private static final long FIRST_RETRY_MS = 100;
    private static final long LAST_RETRY_MS = 5_000;

    /** What became of one block: {@code error} is null when every command in it succeeded. */
    @FunctionalInterface
    public interface Outcome {
        void completed(String error);
    }

    /** A block or the login, sent and not yet answered: {@code replies} top-level replies expected. */
    private record InFlight(int replies, boolean transaction, long sentAtNanos, Outcome outcome) {
    }

    private final EventLoop loop;
    private final RedisEndpoint endpoint;
    private final Class<? extends Channel> channelType;
    private final long timeoutNanos;
    private final SslContext tls;
    private final ArrayDeque<InFlight> inFlight = new ArrayDeque<>();
    private Channel channel;
    /** Written on the loop; volatile for a metric read elsewhere. */
    private volatile boolean ready;
    private boolean closed;
    private long retryMillis = FIRST_RETRY_MS;
    private volatile int refusals;
    private ScheduledFuture<?> watchdog;

    private TransactionPipe(EventLoop loop, RedisEndpoint endpoint, Class<? extends Channel> channelType,
                            Duration timeout) {
        this.loop = loop;
        this.endpoint = endpoint;
        this.channelType = channelType;
        this.timeoutNanos = timeout.toNanos();
        this.tls = endpoint.tls() ? clientTls(endpoint.verify()) : null;
    }

    /**
     * Starts connecting on {@code loop} (a channel of {@code channelType} must fit its transport);
     * a block that waits longer than {@code timeout} for its answer closes the connection, failing
     * it and every block after it.
     */
    public static TransactionPipe open(EventLoop loop, RedisEndpoint endpoint, Class<? extends Channel> channelType,
                                       Duration timeout) {
        TransactionPipe pipe = new TransactionPipe(loop, endpoint, channelType, timeout);
        loop.execute(pipe::connect);
        return pipe;
    }

    /** Whether a block sent now goes to Redis at once (exact on the pipe's event loop). */
    public boolean ready() {
        return ready;
    }

    /**
     * Sends {@code commands} (already RESP arrays, {@code count} of them) between MULTI and EXEC;
     * called on the pipe's event loop. {@code outcome} is told on that loop, exactly once.
     */
    public void send(RespArguments commands, int count, Outcome outcome) {
        if (!ready) {
            outcome.completed("the telemetry connection to Redis is not ready");
            return;
        }
        ByteBuf block = channel.alloc().directBuffer(MULTI.length + commands.byteLength() + EXEC.length);
        block.writeBytes(MULTI);
        commands.copyTo(block);
        block.writeBytes(EXEC);
        inFlight.add(new InFlight(count + 2, true, System.nanoTime(), outcome));
        channel.writeAndFlush(block, channel.voidPromise());
    }

    /** Logins Redis refused so far (a wrong password, an ACL without MULTI): diagnostics and tests. */
    public int refusals() {
        return refusals;
    }

    /** Blocks sent and not answered yet (tests, diagnostics); called on the pipe's event loop. */
    public int inFlight() {
        return inFlight.size();
    }

    @Override
    public void close() {
        loop.execute(() -> {
            closed = true;
            ready = false;
            if (watchdog != null) {
                watchdog.cancel(false);
            }
            if (channel != null) {
                channel.close();
            }
        });
    }

    private void connect() {
        if (closed) {
            return;
        }
        Bootstrap bootstrap = new Bootstrap().group(loop).channel(channelType)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        TimeUnit.NANOSECONDS.toMillis(timeoutNanos)))
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(sslHandler(ch));
                        }
                        ch.pipeline().addLast(new Replies());
                    }
                });
        ChannelFuture connecting = bootstrap.connect(endpoint.host(), endpoint.port());
        channel = connecting.channel();
        connecting.addListener(done -> {
            if (done.isSuccess()) {
                login();
            } else {
                LOG.warn("telemetry connection to {} failed: {}; retrying in {} ms", endpoint, done.cause().toString(),
                        retryMillis);
                retryLater();
            }
        });
        if (watchdog == null) {
            watchdog = loop.scheduleAtFixedRate(this::checkTimeouts, 1, 1, TimeUnit.SECONDS);
        }
    }

    /** AUTH and SELECT as the URL asks, CLIENT SETNAME and an empty MULTI: ready once all answered without an error. */
    private void login() {
        RespArguments commands = new RespArguments(128);
        int count = 0;
        if (endpoint.password() != null) {
            boolean user = endpoint.username() != null;
            commands.command(user ? 3 : 2).text("AUTH");
            if (user) {
                commands.text(endpoint.username());
            }
            commands.text(new String(endpoint.password()));
            count++;
        }
        if (endpoint.database() != 0) {
            commands.command(2).text("SELECT").number(endpoint.database());
            count++;
        }
        // Named, so CLIENT LIST tells these from Lettuce's connections.
        commands.command(3).text("CLIENT").text("SETNAME").text(CLIENT_NAME);
        // An empty block: a user whose ACL refuses MULTI is found here, and the pipe is never ready
        // (the script path takes every packet) instead of failing every block it would send.
        commands.command(1).text("MULTI");
        commands.command(1).text("EXEC");
        count += 3;
        ByteBuf bytes = channel.alloc().buffer(commands.byteLength());
        commands.copyTo(bytes);
        inFlight.add(new InFlight(count, false, System.nanoTime(), error -> {
            if (error != null) {
                refusals++;
                LOG.warn("telemetry connection to {} refused: {}; retrying in {} ms", endpoint, error, retryMillis);
                channel.close();
                return;
            }
            ready = true;
            retryMillis = FIRST_RETRY_MS;
            LOG.info("telemetry connection to {} ready", endpoint);
        }));
        channel.writeAndFlush(bytes, channel.voidPromise());
    }

    private void retryLater() {
        if (closed) {
            return;
        }
        long delay = retryMillis;
        retryMillis = Math.min(LAST_RETRY_MS, retryMillis * 2);
        loop.schedule(this::connect, delay, TimeUnit.MILLISECONDS);
    }

    private void checkTimeouts() {
        InFlight oldest = inFlight.peek();
        if (oldest != null && System.nanoTime() - oldest.sentAtNanos() > timeoutNanos && channel != null) {
            LOG.warn("telemetry connection to {}: no answer within {} ms, reconnecting ({} blocks failed)", endpoint,
                    TimeUnit.NANOSECONDS.toMillis(timeoutNanos), inFlight.size());
            channel.close();
        }
        if (closed && watchdog != null) {
            watchdog.cancel(false);
        }
    }

    private void failAll(String reason) {
        InFlight waiting;
        while ((waiting = inFlight.poll()) != null) {
            tell(waiting, reason);
        }
    }

    /** A caller's failure must not close the connection under the blocks of everybody else. */
    private void tell(InFlight block, String error) {
        try {
            block.outcome().completed(error);
        } catch (RuntimeException e) {
            LOG.error("telemetry connection to {}: a block's outcome handler failed", endpoint, e);
        }
    }

    private SslHandler sslHandler(Channel ch) {
        SslHandler handler = tls.newHandler(ch.alloc(), endpoint.host(), endpoint.port());
        if (endpoint.verify() == SslVerifyMode.FULL) {
            SSLEngine engine = handler.engine();
            SSLParameters parameters = engine.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            engine.setSSLParameters(parameters);
        }
        return handler;
    }

    private static SslContext clientTls(SslVerifyMode verify) {
        try {
            SslContextBuilder builder = SslContextBuilder.forClient();
            if (verify == SslVerifyMode.NONE) {
                builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
            }
            return builder.build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot set up TLS for the telemetry connection", e);
        }
    }

    /** Matches each complete answer to the oldest block waiting for one. */
    private final class Replies extends ByteToMessageDecoder {

        /** Where the reply being walked holds its first error; reused, as replies come on one loop. */
        private final int[] errorAt = new int[1];

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            while (in.isReadable()) {
                InFlight head = inFlight.peek();
                if (head == null) {
                    throw new IllegalStateException("Redis answered a command that was not sent");
                }
                int at = in.readerIndex();
                String error = null;
                for (int i = 0; i < head.replies(); i++) {
                    // One pass per reply: its end, and where an error is (an EXEC's among its answers).
                    errorAt[0] = -1;
                    int end = RespReplies.skip(in, at, errorAt);
                    if (end == RespReplies.INCOMPLETE) {
                        return;
                    }
                    // A command refused while queued fails the EXEC too: its own error says why.
                    if (error == null) {
                        boolean exec = head.transaction() && i == head.replies() - 1;
                        error = errorAt[0] >= 0 ? RespReplies.errorText(in, errorAt[0])
                                : exec && RespReplies.isNullArray(in, at) ? "EXEC did not run" : null;
                    }
                    at = end;
                }
                in.readerIndex(at);
                inFlight.poll();
                tell(head, error);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            super.channelInactive(ctx);
            boolean wasReady = ready;
            ready = false;
            failAll("the telemetry connection to Redis closed");
            if (!closed) {
                if (wasReady) {
                    LOG.warn("telemetry connection to {} lost; reconnecting", endpoint);
                }
                retryLater();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.warn("telemetry connection to {}: {}; reconnecting", endpoint, cause.toString());
            ctx.close();
        }
    }
}
