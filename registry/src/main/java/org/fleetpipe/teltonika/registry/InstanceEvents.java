package org.fleetpipe.teltonika.registry;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * This instance's events channel, {@code <verb> <argument>} messages published inside other
 * instances' scripts: {@code takeover <imei>} (another instance took over one of our devices),
 * {@code command <imei>} (a command was queued for a device held here), {@code reply <id>} (a
 * command accepted here finished). Hints only: Redis data is the truth, so receivers check it, and
 * periodic sweeps cover lost messages.
 */
public final class InstanceEvents implements AutoCloseable {

    private final StatefulRedisPubSubConnection<String, String> connection;
    private final RedisKeys keys;
    private final Duration timeout;
    private String channel;

    /** {@code handlers}: verb to what to do with the argument; runs on a Lettuce thread, so it must not block. */
    public InstanceEvents(StatefulRedisPubSubConnection<String, String> connection, RedisKeys keys, Duration timeout,
                          Map<String, Consumer<String>> handlers) {
        this.connection = connection;
        this.keys = keys;
        this.timeout = timeout;
        Map<String, Consumer<String>> byVerb = Map.copyOf(handlers);
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String from, String message) {
                int space = message.indexOf(' ');
                Consumer<String> handler = space < 0 ? null : byVerb.get(message.substring(0, space));
                if (handler != null) {
                    handler.accept(message.substring(space + 1));
                }
            }
        });
    }

    /** Listens on the channel of {@code instanceId} (and no longer on a previous one). Blocks briefly. */
    public synchronized void listen(String instanceId) {
        String next = keys.instanceEvents(instanceId);
        try {
            connection.async().subscribe(next).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (channel != null && !channel.equals(next)) {
                connection.async().unsubscribe(channel);
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not subscribe to " + next + ": " + e, e);
        }
        channel = next;
    }

    @Override
    public void close() {
        connection.close();
    }
}
