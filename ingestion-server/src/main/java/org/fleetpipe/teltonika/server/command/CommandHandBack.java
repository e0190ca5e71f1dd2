package org.fleetpipe.teltonika.server.command;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.registry.InstanceEvent;
import org.fleetpipe.teltonika.registry.RedisKeys;

/**
 * Hands commands that were sent and never answered back to the head of their device queues, or
 * fails them as {@code attempts} once they were sent as often as their {@code max_attempts}
 * allows: after a device's connection ended (its instance), after an instance died (the
 * janitor through {@link DeadInstanceCommands}, one page of the dead instance's in-flight hash per
 * call), and when a live instance finds entries of its own that no send of its own will end
 * ({@link InFlightCheck}).
 */
public final class CommandHandBack {

    /** What one call did. */
    public record Outcome(long handedBack, long failed) {

        public static final Outcome NONE = new Outcome(0, 0);

        public Outcome plus(Outcome other) {
            return new Outcome(handedBack + other.handedBack, failed + other.failed);
        }
    }

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final CommandKeys commandKeys;
    private final int deadLettersKept;
    private final Duration retention;

    /** {@code deadLettersKept} and {@code retention}: as for every failed command (dlq:commands). */
    public CommandHandBack(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, int deadLettersKept,
                           Duration retention) {
        this.redis = redis;
        this.keys = keys;
        this.commandKeys = new CommandKeys(keys);
        this.deadLettersKept = deadLettersKept;
        this.retention = retention;
    }

    /** The send {@code token} ({@code id:attempt}) of {@code instance} to {@code imei} got no reply before its connection ended. */
    public CompletionStage<Outcome> ofDevice(String instance, String imei, String token) {
        return call(instance, "device", List.of(imei, token));
    }

    /** The in-flight entries of {@code imeis} of a dead {@code instance}; nothing while its heartbeat exists. */
    public CompletionStage<Outcome> ofDeadInstance(String instance, List<String> imeis) {
        return call(instance, "dead", imeis);
    }

    /**
     * The {@code entries} (IMEI to in-flight entry, as read) of the live {@code instance} whose
     * device is registered to another instance or that were in flight longer than {@code limit};
     * each only while its entry is unchanged.
     */
    public CompletionStage<Outcome> ofStaleEntries(String instance, Map<String, String> entries, Duration limit) {
        List<String> tail = new ArrayList<>(1 + 2 * entries.size());
        tail.add(Long.toString(limit.toMillis()));
        entries.forEach((imei, token) -> {
            tail.add(imei);
            tail.add(token);
        });
        return call(instance, "stale", tail);
    }

    private CompletionStage<Outcome> call(String instance, String mode, List<String> tail) {
        List<String> args = new ArrayList<>(List.of(mode, instance, Long.toString(System.currentTimeMillis()),
                commandKeys.commandQueuePrefix(), commandKeys.commandPrefix(), keys.instanceEventsPrefix(),
                Integer.toString(deadLettersKept), Long.toString(retention.toMillis()), InstanceEvent.REPLY.verb(),
                InstanceEvent.COMMAND.verb()));
        args.addAll(tail);
        CompletionStage<List<Long>> reply = CommandScripts.REQUEUE.call(redis, ScriptOutputType.MULTI,
                new String[] {commandKeys.commandsInFlight(instance), commandKeys.commandsInFlightInstances(),
                        keys.heartbeat(instance), commandKeys.commandsQueued(), keys.registry(),
                        commandKeys.commandDeadLetters()},
                args.toArray(String[]::new));
        return reply.thenApply(counts -> new Outcome(counts.get(0), counts.get(1)));
    }
}
