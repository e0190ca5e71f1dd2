package org.fleetpipe.teltonika.server.command;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.HeartbeatDeleteMeans;
import org.fleetpipe.teltonika.registry.InstanceEvent;
import org.fleetpipe.teltonika.registry.RedisKeys;

/** {@link CommandStore} in Redis; every multi-step change is one Lua script. */
public final class RedisCommandStore implements CommandStore {

    /** Device messages kept in their stream. */
    private static final long MESSAGES_MAX_LEN = 100_000;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final CommandKeys commandKeys;
    private final Supplier<String> instanceId;
    private final CommandSettings settings;
    private final CommandHandBack handBack;
    private final String heartbeatGoneMeansStop;

    public RedisCommandStore(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, Supplier<String> instanceId,
                             CommandSettings settings) {
        this(redis, keys, instanceId, settings, HeartbeatDeleteMeans.EXPIRY);
    }

    /** {@code heartbeatDeleteMeans}: with {@code shutdown}, a take finds nothing once the heartbeat is gone. */
    public RedisCommandStore(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, Supplier<String> instanceId,
                             CommandSettings settings, HeartbeatDeleteMeans heartbeatDeleteMeans) {
        this.heartbeatGoneMeansStop = heartbeatDeleteMeans == HeartbeatDeleteMeans.SHUTDOWN ? "1" : "0";
        this.redis = redis;
        this.keys = keys;
        this.commandKeys = new CommandKeys(keys);
        this.instanceId = instanceId;
        this.settings = settings;
        this.handBack = new CommandHandBack(redis, keys, settings.deadLetterMaxEntries(), settings.retention());
    }

    private static String now() {
        return Long.toString(System.currentTimeMillis());
    }

    @Override
    public CompletionStage<Long> enqueue(String id, Imei imei, int codec, String text, String template,
                                         long expiresAt, int maxAttempts) {
        return CommandScripts.ENQUEUE.call(redis, ScriptOutputType.INTEGER,
                new String[] {commandKeys.command(id), commandKeys.commandQueue(imei.value()),
                commandKeys.commandsQueued(),
                        keys.registry(), commandKeys.deviceCommands(imei.value())},
                id, imei.value(), Integer.toString(codec), text, now(), Long.toString(expiresAt), instanceId.get(),
                Integer.toString(settings.maxQueuePerDevice()), keys.instanceEventsPrefix(),
                Integer.toString(maxAttempts), InstanceEvent.COMMAND.verb(), template,
                Integer.toString(settings.maxQueuePerDevice() + 1 + DeviceCommandList.RECENT),
                Long.toString(Math.max(0, expiresAt - System.currentTimeMillis()) + settings.replyTimeout().toMillis()
                        + settings.retention().toMillis()));
    }

    @Override
    public CompletionStage<Optional<TakenCommand>> take(Imei imei) {
        String instance = instanceId.get();
        CompletionStage<List<Object>> taken = CommandScripts.TAKE.call(redis, ScriptOutputType.MULTI,
                new String[] {commandKeys.commandQueue(imei.value()), commandKeys.commandsInFlight(instance),
                        commandKeys.commandsInFlightInstances(), commandKeys.commandsQueued(),
                        commandKeys.commandDeadLetters(),
                        keys.shutdownMarker(instance), keys.heartbeat(instance)},
                imei.value(), instance, now(), commandKeys.commandPrefix(),
                Integer.toString(settings.deadLetterMaxEntries()), Long.toString(settings.retention().toMillis()),
                keys.instanceEventsPrefix(), InstanceEvent.REPLY.verb(), heartbeatGoneMeansStop);
        return taken.thenApply(reply -> {
            if (reply == null || reply.size() < 4) {
                return Optional.empty();
            }
            return Optional.of(new TakenCommand(String.valueOf(reply.get(0)),
                    Integer.parseInt(String.valueOf(reply.get(1))), String.valueOf(reply.get(2)),
                    Long.parseLong(String.valueOf(reply.get(3)))));
        });
    }

    @Override
    public CompletionStage<Boolean> finish(TakenCommand command, Imei imei, boolean replied, String reason,
                                           String text) {
        String id = command.id();
        return CommandScripts.FINISH.<Long>call(redis, ScriptOutputType.INTEGER,
                new String[] {commandKeys.command(id), commandKeys.commandsInFlight(instanceId.get()),
                commandKeys.commandDeadLetters()},
                id, imei.value(), replied ? "replied" : "failed", reason == null ? "" : reason,
                text == null ? "" : text, now(), Integer.toString(settings.deadLetterMaxEntries()),
                Long.toString(settings.retention().toMillis()), keys.instanceEventsPrefix(), command.token(),
                InstanceEvent.REPLY.verb()).thenApply(n -> n == 1L);
    }

    @Override
    public CompletionStage<CommandHandBack.Outcome> requeue(Imei imei, TakenCommand command) {
        return handBack.ofDevice(instanceId.get(), imei.value(), command.token());
    }

    @Override
    public CompletionStage<Map<String, String>> get(String id) {
        return redis.hgetall(commandKeys.command(id));
    }

    @Override
    public CompletionStage<String> deviceMessage(Imei imei, String codec, long deviceTimestampSeconds, String text) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("imei", imei.value());
        fields.put("codec", codec);
        if (deviceTimestampSeconds >= 0) {
            fields.put("ts", Long.toString(deviceTimestampSeconds * 1000));
        }
        fields.put("rx", now());
        fields.put("text", text);
        fields.put("instance", instanceId.get());
        return redis.xadd(commandKeys.deviceMessages(), XAddArgs.Builder.maxlen(MESSAGES_MAX_LEN).approximateTrimming(),
                fields);
    }
}
