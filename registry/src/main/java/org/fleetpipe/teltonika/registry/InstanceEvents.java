package org.fleetpipe.teltonika.registry;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * This instance's events channel: another instance that takes over one of our devices publishes
 * {@code takeover <imei>} there (inside its claim script). A hint only: the registry hash is the
 * truth, so the receiver checks the owner before it closes anything.
 */
public final class InstanceEvents implements AutoCloseable {

    private static final String TAKEOVER = "takeover ";

    private final StatefulRedisPubSubConnection<String, String> connection;
    private final RedisKeys keys;
    private final Duration timeout;
    private String channel;

    public InstanceEvents(StatefulRedisPubSubConnection<String, String> connection, RedisKeys keys, Duration timeout,
                          Consumer<String> onTakeover) {
        this.connection = connection;
        this.keys = keys;
        this.timeout = timeout;
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String from, String message) {
                if (message.startsWith(TAKEOVER)) {
                    onTakeover.accept(message.substring(TAKEOVER.length()));
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
