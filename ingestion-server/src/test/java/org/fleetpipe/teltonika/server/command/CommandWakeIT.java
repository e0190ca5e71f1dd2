package org.fleetpipe.teltonika.server.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.lifecycle.PendingCalls;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceSession;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A wake (an enqueue's event) that arrives while the device's take is under way is not lost: that
 * take may have read the queue before the enqueue, so another follows. Real Redis decides every
 * take; the test only holds the first take's answer until the enqueue and its wake have happened,
 * the order a login and a command posted right after it can take on a busy machine.
 */
@WithRedis
class CommandWakeIT {

    private static final Imei IMEI = new Imei("352093081452251");
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** The sweep, which would find the command in the end, never runs here. */
    private static final CommandSettings SETTINGS = new CommandSettings(Duration.ofSeconds(30), Duration.ofHours(1),
            Duration.ofDays(7), 100, 512, Duration.ofSeconds(60), Duration.ofDays(1), 1000, Duration.ofHours(1), 3,
            Duration.ofSeconds(5), false);

    private final RedisKeys keys = new RedisKeys("");
    private final CommandKeys commandKeys = new CommandKeys(keys);
    private final EventLoopGroup loops = new DefaultEventLoopGroup(1);
    private StatefulRedisConnection<String, String> connection;
    private RedisCommandStore store;
    private HeldFirstTake held;
    private Channel server;
    private Channel device;
    private final AtomicInteger bytesToDevice = new AtomicInteger();

    @BeforeEach
    void start(RedisFixture fixture) throws Exception {
        connection = fixture.client().connect();
        store = new RedisCommandStore(connection.async(), keys, () -> "me-1", SETTINGS);
        held = new HeldFirstTake(store);
        LocalAddress address = new LocalAddress("command-wake-" + System.nanoTime());
        AtomicReference<Channel> accepted = new AtomicReference<>();
        server = new ServerBootstrap().group(loops).channel(LocalServerChannel.class)
                .childHandler(new ChannelInitializer<LocalChannel>() {
                    @Override
                    protected void initChannel(LocalChannel ch) {
                        accepted.set(ch);
                    }
                }).bind(address).sync().channel();
        device = new Bootstrap().group(loops).channel(LocalChannel.class).handler(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                bytesToDevice.addAndGet(((ByteBuf) msg).readableBytes());
                ((ByteBuf) msg).release();
            }
        }).connect(address).sync().channel();
        await().atMost(TIMEOUT).until(() -> accepted.get() != null);
        this.server = accepted.get();
    }

    @AfterEach
    void stop() throws Exception {
        device.close().sync();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        connection.close();
    }

    @Test
    void aWakeDuringTheLoginsTake_sendsTheCommandEnqueuedBehindIt() {
        SessionTable sessions = new SessionTable();
        CommandDispatcher dispatcher = new CommandDispatcher(held, sessions, SETTINGS, IngestionMetrics.noop(),
                new PendingCalls(), new UnsolicitedMessages(5, 64), CommandReplies.NONE);
        Channel channel = server;
        channel.eventLoop().execute(() -> {
            DeviceSession.of(channel).loggedIn(IMEI, System.currentTimeMillis());
            sessions.register(IMEI, channel);
            dispatcher.loggedIn(IMEI, channel);
        });
        // The login's take has read the empty queue; its answer is held.
        await().atMost(TIMEOUT).until(held::firstTaken);

        Blocking.await(store.enqueue("c-1", IMEI, 12, "getinfo", "", System.currentTimeMillis() + 3_600_000, 3),
                TIMEOUT);
        dispatcher.wake(IMEI.value());
        // The wake has been looked at on the device's loop before the take's answer comes back.
        Blocking.await(CompletableFuture.runAsync(() -> { }, channel.eventLoop()), TIMEOUT);
        held.release();

        await().atMost(TIMEOUT).until(() -> bytesToDevice.get() > 0);
        assertThat(connection.sync().hget(commandKeys.command("c-1"), "status")).isEqualTo("sent");
        assertThat(held.takes()).isEqualTo(2);
    }

    /** The real store, with the first take's answer held back until {@link #release()}. */
    private static final class HeldFirstTake implements CommandStore {

        private final CommandStore delegate;
        private final CompletableFuture<Void> released = new CompletableFuture<>();
        private final AtomicInteger takes = new AtomicInteger();
        private volatile boolean firstTaken;

        HeldFirstTake(CommandStore delegate) {
            this.delegate = delegate;
        }

        boolean firstTaken() {
            return firstTaken;
        }

        int takes() {
            return takes.get();
        }

        void release() {
            released.complete(null);
        }

        @Override
        public CompletionStage<Optional<TakenCommand>> take(Imei imei) {
            if (takes.incrementAndGet() > 1) {
                return delegate.take(imei);
            }
            return delegate.take(imei).thenApply(taken -> {
                firstTaken = true;
                return taken;
            }).thenCombine(released, (taken, v) -> taken);
        }

        @Override
        public CompletionStage<Long> enqueue(String id, Imei imei, int codec, String text, String template,
                                             long expiresAt, int maxAttempts) {
            return delegate.enqueue(id, imei, codec, text, template, expiresAt, maxAttempts);
        }

        @Override
        public CompletionStage<Boolean> finish(TakenCommand command, Imei imei, boolean replied, String reason,
                                               String text) {
            return delegate.finish(command, imei, replied, reason, text);
        }

        @Override
        public CompletionStage<CommandHandBack.Outcome> requeue(Imei imei, TakenCommand command) {
            return delegate.requeue(imei, command);
        }

        @Override
        public CompletionStage<java.util.Map<String, String>> get(String id) {
            return delegate.get(id);
        }

        @Override
        public CompletionStage<String> deviceMessage(Imei imei, String codec, long deviceTimestampSeconds,
                                                     String text) {
            return delegate.deviceMessage(imei, codec, deviceTimestampSeconds, text);
        }
    }
}
