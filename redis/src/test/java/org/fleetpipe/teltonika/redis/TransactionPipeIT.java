package org.fleetpipe.teltonika.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.redislauncher.LocalRedisServer;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** MULTI blocks on a connection of their own, against a real Redis: answers, errors, loss and silence. */
@WithRedis
class TransactionPipeIT {

    private MultiThreadIoEventLoopGroup group;
    private EventLoop loop;

    @BeforeEach
    void startLoop() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        loop = group.next();
    }

    @AfterEach
    void stopLoop() throws InterruptedException {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    }

    @Test
    void send_whenEveryCommandSucceeds_thenNoErrorAndAllRan(RedisFixture redis) throws Exception {
        try (TransactionPipe pipe = open(redis.uri(), Duration.ofSeconds(5))) {
            awaitReady(pipe);
            RespArguments commands = new RespArguments(256);
            commands.command(5).text("XADD").text("s").text("*").text("f").text("v");
            commands.command(4).text("SADD").text("set").number(1).number(2);
            commands.command(3).text("PEXPIRE").text("set").number(60_000);

            assertThat(send(pipe, commands, 3)).isNull();
            RedisCommands<String, String> sync = redis.client().connect().sync();
            assertThat(sync.xlen("s")).isEqualTo(1);
            assertThat(sync.smembers("set")).containsExactlyInAnyOrder("1", "2");
            assertThat(sync.pttl("set")).isPositive();
            assertThat(sync.clientList()).contains("name=" + TransactionPipe.CLIENT_NAME);
        }
    }

    @Test
    void send_whenOneCommandFailsInsideTheBlock_thenItsErrorIsTold(RedisFixture redis) throws Exception {
        redis.client().connect().sync().set("not-a-set", "x");
        try (TransactionPipe pipe = open(redis.uri(), Duration.ofSeconds(5))) {
            awaitReady(pipe);
            RespArguments commands = new RespArguments(256);
            commands.command(5).text("XADD").text("s").text("*").text("f").text("v");
            commands.command(3).text("SADD").text("not-a-set").number(1);

            assertThat(send(pipe, commands, 2)).startsWith("WRONGTYPE");

            // A command Redis refuses while queuing discards the whole block, and the pipe goes on.
            RespArguments refused = new RespArguments(64);
            refused.command(2).text("XADD").text("s");
            assertThat(send(pipe, refused, 1)).startsWith("ERR wrong number of arguments");
            assertThat(redis.client().connect().sync().xlen("s")).as("only the first block's XADD ran").isEqualTo(1);
            RespArguments next = new RespArguments(64);
            next.command(5).text("XADD").text("s").text("*").text("f").text("v");
            assertThat(send(pipe, next, 1)).isNull();
        }
    }

    @Test
    void send_manyBlocksPipelined_thenEachToldInOrder(RedisFixture redis) throws Exception {
        try (TransactionPipe pipe = open(redis.uri(), Duration.ofSeconds(5))) {
            awaitReady(pipe);
            int blocks = 2_000;
            CompletableFuture<int[]> order = new CompletableFuture<>();
            loop.execute(() -> {
                int[] told = new int[1];
                for (int i = 0; i < blocks; i++) {
                    RespArguments commands = new RespArguments(128);
                    for (int k = 0; k < 10; k++) {
                        commands.command(5).text("XADD").text("s").text("*").text("n").number(i);
                    }
                    int expected = i;
                    pipe.send(commands, 10, error -> {
                        if (error != null || told[0] != expected) {
                            order.completeExceptionally(new AssertionError("block " + expected + ": " + error));
                        } else if (++told[0] == blocks) {
                            order.complete(told);
                        }
                    });
                }
            });
            assertThat(order.get(30, TimeUnit.SECONDS)[0]).isEqualTo(blocks);
            assertThat(redis.client().connect().sync().xlen("s")).isEqualTo(blocks * 10L);
        }
    }

    @Test
    void send_whenRedisFallsSilent_thenTheBlockFailsAfterTheTimeoutAndThePipeReconnects(RedisFixture redis)
            throws Exception {
        try (TransactionPipe pipe = open(redis.uri(), Duration.ofMillis(500))) {
            awaitReady(pipe);
            redis.freeze();
            RespArguments commands = new RespArguments(64);
            commands.command(5).text("XADD").text("s").text("*").text("f").text("v");
            CompletableFuture<String> outcome = sendAsync(pipe, commands, 1);
            try {
                assertThat(outcome.get(10, TimeUnit.SECONDS)).contains("closed");
            } finally {
                redis.thaw();
            }
            awaitReady(pipe);
            assertThat(send(pipe, commands, 1)).isNull();
        }
    }

    @Test
    void send_whenTheConnectionIsKilled_thenThePipeReconnectsByItself(RedisFixture redis) throws Exception {
        try (TransactionPipe pipe = open(redis.uri(), Duration.ofSeconds(5));
             StatefulRedisConnection<String, String> operator = redis.client().connect()) {
            awaitReady(pipe);
            long first = pipeClientId(operator);
            operator.sync().clientKill(KillArgs.Builder.id(first));

            await().atMost(Duration.ofSeconds(20)).until(() -> pipeClientId(operator) > first);
            awaitReady(pipe);
            RespArguments commands = new RespArguments(64);
            commands.command(5).text("XADD").text("s").text("*").text("f").text("v");
            assertThat(send(pipe, commands, 1)).isNull();
        }
    }

    private static long pipeClientId(StatefulRedisConnection<String, String> operator) {
        for (String line : operator.sync().clientList().split("\n")) {
            if (line.contains("name=" + TransactionPipe.CLIENT_NAME + " ")) {
                return Long.parseLong(line.substring(3, line.indexOf(' ')));
            }
        }
        return -1;
    }

    @Test
    void open_whenRedisWantsAPassword_thenTheUrlsPasswordLogsIn() throws Exception {
        try (LocalRedisServer server = LocalRedisServer.builder().password("s3cret-pipe").build().start()) {
            try (TransactionPipe pipe = open(server.uri(), Duration.ofSeconds(5))) {
                awaitReady(pipe);
                RespArguments commands = new RespArguments(64);
                commands.command(5).text("XADD").text("s").text("*").text("f").text("v");
                assertThat(send(pipe, commands, 1)).isNull();
            }
            RedisClient client = RedisClient.create(server.uri());
            try {
                assertThat(client.connect().sync().xlen("s")).isEqualTo(1);
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void open_whenTheUsersAclRefusesMulti_thenThePipeIsNeverReady(RedisFixture redis) throws Exception {
        try (StatefulRedisConnection<String, String> operator = redis.client().connect()) {
            acl(operator, "SETUSER", "writer", "on", ">writer-pass", "~*", "+@all", "-multi");
            try (TransactionPipe pipe = open(asWriter(redis.uri()), Duration.ofSeconds(5))) {
                await().atMost(Duration.ofSeconds(20)).until(() -> pipe.refusals() >= 1);
                assertThat(onLoop(pipe::ready)).isFalse();
            } finally {
                acl(operator, "DELUSER", "writer");
            }
        }
    }

    @Test
    void open_whenTheUrlNamesAUser_thenItLogsInAsThatUser(RedisFixture redis) throws Exception {
        try (StatefulRedisConnection<String, String> operator = redis.client().connect()) {
            acl(operator, "SETUSER", "writer", "on", ">writer-pass", "~*", "+@all");
            try (TransactionPipe pipe = open(asWriter(redis.uri()), Duration.ofSeconds(5))) {
                awaitReady(pipe);
                assertThat(operator.sync().clientList().lines()
                        .filter(line -> line.contains("name=" + TransactionPipe.CLIENT_NAME + " ")))
                        .singleElement().asString().contains(" user=writer ");
            } finally {
                acl(operator, "DELUSER", "writer");
            }
        }
    }

    private static String asWriter(String uri) {
        return uri.replaceFirst("^redis://([^@/]*@)?", "redis://writer:writer-pass@");
    }

    private static void acl(StatefulRedisConnection<String, String> operator, String... arguments) {
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
        for (String argument : arguments) {
            args.add(argument);
        }
        operator.sync().dispatch(CommandType.ACL, new ArrayOutput<>(StringCodec.UTF8), args);
    }

    private TransactionPipe open(String uri, Duration timeout) {
        return TransactionPipe.open(loop, RedisEndpoint.of(uri).orElseThrow(), NioSocketChannel.class, timeout);
    }

    private void awaitReady(TransactionPipe pipe) {
        await().atMost(Duration.ofSeconds(20)).until(() -> onLoop(pipe::ready));
    }

    private boolean onLoop(java.util.function.BooleanSupplier check) throws Exception {
        return loop.submit(check::getAsBoolean).get(5, TimeUnit.SECONDS);
    }

    private String send(TransactionPipe pipe, RespArguments commands, int count) throws Exception {
        return sendAsync(pipe, commands, count).get(10, TimeUnit.SECONDS);
    }

    private CompletableFuture<String> sendAsync(TransactionPipe pipe, RespArguments commands, int count) {
        CompletableFuture<String> outcome = new CompletableFuture<>();
        loop.execute(() -> pipe.send(commands, count, error -> outcome.complete(error == null ? null : error)));
        return outcome;
    }
}
