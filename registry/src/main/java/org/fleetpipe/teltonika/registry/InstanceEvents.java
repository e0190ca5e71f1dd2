package org.fleetpipe.teltonika.registry;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * This instance's events channel: {@link InstanceEvent} messages ({@code <verb> <argument>})
 * published inside other instances' scripts, such as {@code takeover <imei>} (another instance
 * took over one of our devices), {@code command <imei>} (a command was queued for a device held
 * here) or {@code reply <id>} (a command accepted here finished). Hints only: Redis data is the
 * truth, so receivers check it, and periodic sweeps cover lost messages.
 */
public final class InstanceEvents implements AutoCloseable {

    private final StatefulRedisPubSubConnection<String, String> connection;
    private final RedisKeys keys;
    private final Duration timeout;
    /** Replaced whole by {@link #on}, so Lettuce's thread reads it without a lock. */
    private volatile Map<InstanceEvent, Consumer<String>> handlers = new EnumMap<>(InstanceEvent.class);
    private String channel;

    public InstanceEvents(StatefulRedisPubSubConnection<String, String> connection, RedisKeys keys, Duration timeout) {
        this.connection = connection;
        this.keys = keys;
        this.timeout = timeout;
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String from, String message) {
                int space = message.indexOf(' ');
                InstanceEvent event = space < 0 ? null : InstanceEvent.ofVerb(message.substring(0, space));
                Consumer<String> handler = event == null ? null : handlers.get(event);
                if (handler != null) {
                    handler.accept(message.substring(space + 1));
                }
            }
        });
    }

    /**
     * What to do with the argument of each {@code event}; set before {@link #listen}. It runs on a
     * Lettuce thread, so it must not block. An event without a handler is ignored.
     */
    public synchronized InstanceEvents on(InstanceEvent event, Consumer<String> handler) {
        Map<InstanceEvent, Consumer<String>> next = new EnumMap<>(handlers);
        next.put(event, handler);
        handlers = next;
        return this;
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
