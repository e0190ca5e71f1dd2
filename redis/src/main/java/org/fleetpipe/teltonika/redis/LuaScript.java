package org.fleetpipe.teltonika.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerListOutput;
import io.lettuce.core.protocol.CommandType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A Lua script read once from the classpath and called by its SHA. When Redis answers NOSCRIPT
 * (it restarted, or SCRIPT FLUSH ran) the call is retried once with the body, which also caches it.
 * Each area declares its scripts once, in one catalogue class (e.g. {@code RegistryScripts}).
 */
public final class LuaScript {

    private final String name;
    private final String body;
    private final String sha;
    private final byte[] shaBulk;
    private final byte[] bodyBulk;

    private LuaScript(String name, String body) {
        this.name = name;
        this.body = body;
        this.sha = sha1(body);
        this.shaBulk = RespArguments.preEncoded(sha);
        this.bodyBulk = RespArguments.preEncoded(body);
    }

    /**
     * Loads the scripts of every catalogue into Redis. Not needed for correctness (a NOSCRIPT
     * answer is retried with the body), but the retry goes after commands issued meanwhile; loading
     * them first keeps the usual order of calls.
     */
    @SafeVarargs
    public static void loadAll(RedisClusterCommands<String, String> redis, List<LuaScript>... catalogues) {
        for (List<LuaScript> catalogue : catalogues) {
            for (LuaScript script : catalogue) {
                redis.scriptLoad(script.body);
            }
        }
    }

    /** Loads {@code resource} (e.g. {@code registry/release-if-owner.lua}) from the classpath. */
    public static LuaScript fromResource(String resource) {
        return new LuaScript(resource, read(resource));
    }

    /**
     * One script made of several resources, in order: shared functions first (a Redis script
     * cannot include another), the script itself last, which also names it.
     */
    public static LuaScript fromResources(String... resources) {
        StringBuilder body = new StringBuilder();
        for (String resource : resources) {
            body.append(read(resource)).append('\n');
        }
        return new LuaScript(resources[resources.length - 1], body.toString());
    }

    /** The text of a script resource, for a script sent whole rather than by SHA. */
    public static String read(String resource) {
        try (InputStream in = LuaScript.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script not on the classpath: " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String name() {
        return name;
    }

    public String sha() {
        return sha;
    }

    public <T> CompletionStage<T> call(RedisClusterAsyncCommands<String, String> redis, ScriptOutputType type, String[] keys,
                                       String... args) {
        return bodyOnNoScript(() -> redis.<T>evalsha(sha, type, keys, args).toCompletableFuture(),
                () -> redis.<T>eval(body, type, keys, args).toCompletableFuture());
    }

    /**
     * Calls a script that answers a list of integers, with {@code keysAndArgs} already encoded (the
     * key count, the keys, then the arguments), for calls with so many arguments that encoding them
     * on Lettuce's thread costs.
     */
    public CompletionStage<List<Long>> callIntegers(RedisClusterAsyncCommands<String, String> redis, RespArguments keysAndArgs) {
        return callIntegers(redis, keysAndArgs, null);
    }

    /** As above, sent on a Redis Cluster to the node of {@code routingKey}, one of the call's keys. */
    public CompletionStage<List<Long>> callIntegers(RedisClusterAsyncCommands<String, String> redis, RespArguments keysAndArgs,
                                                    String routingKey) {
        return bodyOnNoScript(
                () -> redis.dispatch(CommandType.EVALSHA, new IntegerListOutput<>(StringCodec.UTF8),
                        keysAndArgs.after(shaBulk, routingKey)).toCompletableFuture(),
                () -> redis.dispatch(CommandType.EVAL, new IntegerListOutput<>(StringCodec.UTF8),
                        keysAndArgs.after(bodyBulk, routingKey)).toCompletableFuture());
    }

    private static <T> CompletionStage<T> bodyOnNoScript(Supplier<CompletableFuture<T>> bySha,
                                                         Supplier<CompletableFuture<T>> byBody) {
        return bySha.get().handle((value, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(value);
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof RedisNoScriptException) {
                return byBody.get();
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(f -> f);
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
