package org.fleetpipe.teltonika.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/** Replies read by the calling thread from a socket, against a real Redis, told as Lettuce's decoder tells them. */
@WithRedis
class RespSocketIT {

    @Test
    void dispatch_givesAnOutputTheCallbacksLettucesDecoderGives(RedisFixture redis) {
        // Lettuce on RESP2, as the socket speaks it (RESP3 answers some replies in other types).
        RedisClient resp2 = RedisClient.create(redis.uri());
        resp2.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP2).build());
        try {
            compareWithLettuce(redis, resp2.connect().sync());
        } finally {
            resp2.shutdown();
        }
    }

    private static void compareWithLettuce(RedisFixture redis, RedisCommands<String, String> sync) {
        // Values longer than the socket's first buffer (64 KiB), empty ones, integers, nested arrays, nil.
        sync.xadd("s", Map.of("big", "x".repeat(200_000), "empty", "", "n", "1"));
        for (int i = 0; i < 300; i++) {
            sync.xadd("s", Map.of("seq", Integer.toString(i), "text", "ü" + i));
        }
        sync.set("k", "v");
        try (RespSocket socket = socket(redis)) {
            for (CommandType type : List.of(CommandType.XRANGE, CommandType.XLEN, CommandType.GET, CommandType.MGET)) {
                CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
                switch (type) {
                    case XRANGE -> args.addKey("s").add("-").add("+");
                    case XLEN -> args.addKey("s");
                    case GET -> args.addKey("nothing");
                    default -> args.addKeys("k", "nothing", "k");
                }
                List<String> byLettuce = sync.dispatch(type, new Recording(), args);
                List<String> bySocket = socket.dispatch(type, new Recording(), args);

                assertThat(bySocket).as("%s", type).isNotEmpty().isEqualTo(byLettuce);
            }
            // A blocking read that finds nothing: a nil array.
            sync.xgroupCreate(io.lettuce.core.XReadArgs.StreamOffset.latest("s"), "g");
            CommandArgs<String, String> read = new CommandArgs<>(StringCodec.UTF8).add("GROUP").add("g").add("c")
                    .add("BLOCK").add(50).add("STREAMS").addKey("s").add(">");
            assertThat(socket.dispatch(CommandType.XREADGROUP, new Recording(), read))
                    .isEqualTo(sync.dispatch(CommandType.XREADGROUP, new Recording(), read));
        }
    }

    @Test
    void dispatch_whenRedisAnswersAnError_thenThrowsItAndTheConnectionGoesOn(RedisFixture redis) {
        try (RespSocket socket = socket(redis)) {
            CommandArgs<String, String> read = new CommandArgs<>(StringCodec.UTF8).add("GROUP").add("none")
                    .add("c").add("STREAMS").addKey("missing").add(">");

            assertThatThrownBy(() -> socket.dispatch(CommandType.XREADGROUP, new Recording(), read))
                    .isInstanceOf(RedisCommandExecutionException.class).hasMessageStartingWith("NOGROUP");
            assertThat(ping(socket)).isEqualTo("PONG");
        }
    }

    @Test
    void dispatch_afterTheConnectionWasKilled_failsOnce_thenConnectsAgain(RedisFixture redis) {
        try (RespSocket socket = socket(redis);
             StatefulRedisConnection<String, String> operator = redis.client().connect()) {
            assertThat(ping(socket)).isEqualTo("PONG");
            operator.sync().clientKill(KillArgs.Builder.id(clientId(operator, "resp-socket-it")));

            assertThatThrownBy(() -> ping(socket)).isInstanceOf(RedisConnectionException.class);
            assertThat(ping(socket)).isEqualTo("PONG");
        }
    }

    @Test
    void dispatch_whenNoReplyComesWithinTheTimeout_thenFailsAndTheNextCallWorks(RedisFixture redis) {
        redis.client().connect().sync().xgroupCreate(io.lettuce.core.XReadArgs.StreamOffset.latest("quiet"), "g",
                io.lettuce.core.XGroupCreateArgs.Builder.mkstream());
        try (RespSocket socket = new RespSocket(RedisEndpoint.of(redis.uri()).orElseThrow(), Duration.ofMillis(300),
                "resp-socket-it")) {
            CommandArgs<String, String> read = new CommandArgs<>(StringCodec.UTF8).add("GROUP").add("g").add("c")
                    .add("BLOCK").add(5_000).add("STREAMS").addKey("quiet").add(">");

            assertThatThrownBy(() -> socket.dispatch(CommandType.XREADGROUP, new Recording(), read))
                    .isInstanceOf(RedisConnectionException.class).hasMessageContaining("timed out");
            assertThat(ping(socket)).isEqualTo("PONG");
        }
    }

    @Test
    void login_withAnAclUserWithoutClientSetname_andRefusedWithAWrongPassword(RedisFixture redis) {
        RedisCommands<String, String> sync = redis.client().connect().sync();
        // Without CLIENT: the connection's name is a label, not a reason to refuse reading.
        sync.aclSetuser("socket-user", io.lettuce.core.AclSetuserArgs.Builder.on().addPassword("s3cret")
                .allCommands().removeCommand(CommandType.CLIENT).allKeys());
        try {
            String url = "redis://socket-user:s3cret@127.0.0.1:" + redis.port() + "/2";
            try (RespSocket socket = new RespSocket(RedisEndpoint.of(url).orElseThrow(), Duration.ofSeconds(5),
                    "resp-socket-it")) {
                socket.dispatch(CommandType.SET, new StatusOutput<>(StringCodec.UTF8),
                        new CommandArgs<>(StringCodec.UTF8).addKey("in-db-2").add("v"));
                sync.select(2);
                assertThat(sync.get("in-db-2")).isEqualTo("v");
                sync.select(0);
            }
            String wrong = "redis://socket-user:never-logged@127.0.0.1:" + redis.port();
            try (RespSocket socket = new RespSocket(RedisEndpoint.of(wrong).orElseThrow(), Duration.ofSeconds(5),
                    "resp-socket-it")) {
                assertThatThrownBy(() -> ping(socket)).isInstanceOf(RedisConnectionException.class)
                        .hasMessageContaining("refused AUTH").hasMessageNotContaining("never-logged");
            }
        } finally {
            sync.aclDeluser("socket-user");
        }
    }

    private static RespSocket socket(RedisFixture redis) {
        return new RespSocket(RedisEndpoint.of(redis.uri()).orElseThrow(), Duration.ofSeconds(5), "resp-socket-it");
    }

    private static String ping(RespSocket socket) {
        return socket.dispatch(CommandType.PING, new StatusOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8));
    }

    private static long clientId(StatefulRedisConnection<String, String> operator, String name) {
        for (String line : operator.sync().clientList().split("\n")) {
            if (line.contains(" name=" + name + " ")) {
                return Long.parseLong(line.substring(3, line.indexOf(' ')));
            }
        }
        throw new AssertionError("no client named " + name);
    }

    /** Every callback an output gets, in order, with the bytes it was handed. */
    private static final class Recording extends CommandOutput<String, String, List<String>> {

        Recording() {
            super(StringCodec.UTF8, new ArrayList<>());
        }

        @Override
        public void set(ByteBuffer bytes) {
            output.add(bytes == null ? "set(nil)" : "set(" + StandardCharsets.UTF_8.decode(bytes) + ")");
        }

        @Override
        public void set(long integer) {
            output.add("set(" + integer + "L)");
        }

        @Override
        public void multi(int count) {
            output.add("multi(" + count + ")");
        }

        @Override
        public void complete(int depth) {
            output.add("complete(" + depth + ")");
        }
    }
}
