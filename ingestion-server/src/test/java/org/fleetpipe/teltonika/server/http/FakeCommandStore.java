package org.fleetpipe.teltonika.server.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.command.CommandHandBack;
import org.fleetpipe.teltonika.server.command.CommandStore;
import org.fleetpipe.teltonika.server.command.TakenCommand;

/** A CommandStore in memory whose behaviour a test chooses: accept, refuse (queue full) or fail. */
final class FakeCommandStore implements CommandStore {

    enum Mode { ACCEPT, FULL, FAIL }

    /** What a store failure looks like to the routes: Lettuce's exception when Redis is down. */
    static RuntimeException redisDown() {
        return new io.lettuce.core.RedisConnectionException("Unable to connect to redis/10.0.0.7:6379");
    }

    volatile Mode mode = Mode.ACCEPT;
    final Map<String, Map<String, String>> commands = new ConcurrentHashMap<>();
    final List<String> enqueued = new ArrayList<>();
    /** Called with each accepted command's id before enqueue completes. */
    volatile java.util.function.Consumer<String> onEnqueue = id -> { };

    @Override
    public CompletionStage<Long> enqueue(String id, Imei imei, int codec, String text, String template,
                                         long expiresAt, int maxAttempts) {
        if (mode == Mode.FAIL) {
            return CompletableFuture.failedFuture(redisDown());
        }
        if (mode == Mode.FULL) {
            return CompletableFuture.completedFuture(-1L);
        }
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("id", id);
        fields.put("imei", imei.value());
        fields.put("codec", Integer.toString(codec));
        fields.put("command", text);
        fields.put("status", "queued");
        fields.put("attempts", "0");
        fields.put("max_attempts", Integer.toString(maxAttempts));
        fields.put("created_at", "1700000000000");
        fields.put("expires_at", Long.toString(expiresAt));
        fields.put("history", "[{\"status\":\"queued\",\"at\":1700000000000}]");
        commands.put(id, fields);
        enqueued.add(id);
        onEnqueue.accept(id);
        return CompletableFuture.completedFuture(1L);
    }

    @Override
    public CompletionStage<Map<String, String>> get(String id) {
        if (mode == Mode.FAIL) {
            return CompletableFuture.failedFuture(redisDown());
        }
        return CompletableFuture.completedFuture(commands.getOrDefault(id, Map.of()));
    }

    @Override
    public CompletionStage<Optional<TakenCommand>> take(Imei imei) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletionStage<Boolean> finish(TakenCommand command, Imei imei, boolean replied, String reason, String text) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletionStage<CommandHandBack.Outcome> requeue(Imei imei, TakenCommand command) {
        throw new UnsupportedOperationException();
    }

    @Override
    public CompletionStage<String> deviceMessage(Imei imei, String codec, long deviceTimestampSeconds, String text) {
        throw new UnsupportedOperationException();
    }
}
