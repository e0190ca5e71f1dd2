package org.fleetpipe.teltonika.registry;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A Lua script read once from the classpath and called by its SHA. When Redis answers NOSCRIPT
 * (it restarted, or SCRIPT FLUSH ran) the call is retried once with the body, which also caches it.
 */
public final class LuaScript {

    private final String name;
    private final String body;
    private final String sha;

    /** Every script this process uses, so they can all be loaded at start. */
    private static final java.util.List<LuaScript> ALL = new java.util.concurrent.CopyOnWriteArrayList<>();

    private LuaScript(String name, String body) {
        this.name = name;
        this.body = body;
        this.sha = sha1(body);
        ALL.add(this);
    }

    /**
     * Loads every script created so far into Redis. Not needed for correctness (a NOSCRIPT answer
     * is retried with the body), but the retry goes after commands issued meanwhile; loading them
     * first keeps the usual order of calls.
     */
    public static void loadAll(io.lettuce.core.api.sync.RedisCommands<String, String> redis) {
        for (LuaScript script : ALL) {
            redis.scriptLoad(script.body);
        }
    }

    /** Loads {@code resource} (e.g. {@code registry/release-if-owner.lua}) from the classpath. */
    public static LuaScript fromResource(String resource) {
        try (InputStream in = LuaScript.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script not on the classpath: " + resource);
            }
            return new LuaScript(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
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

    public <T> CompletionStage<T> call(RedisAsyncCommands<String, String> redis, ScriptOutputType type, String[] keys,
                                       String... args) {
        CompletableFuture<T> first = redis.<T>evalsha(sha, type, keys, args).toCompletableFuture();
        return first.handle((value, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(value);
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof RedisNoScriptException) {
                return redis.<T>eval(body, type, keys, args).toCompletableFuture();
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
