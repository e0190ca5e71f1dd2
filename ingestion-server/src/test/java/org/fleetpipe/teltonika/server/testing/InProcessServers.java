package org.fleetpipe.teltonika.server.testing;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;

/** Servers and device connections started by one test against one Redis, all closed by {@link #close()}. */
public final class InProcessServers implements AutoCloseable {

    private final RedisFixture redis;
    private final Map<String, Object> base;
    private final List<IngestionServer> servers = new ArrayList<>();
    private final List<DeviceClient> devices = new ArrayList<>();
    private final StatefulRedisConnection<String, String> connection;

    /** {@code base}: settings every server of the test gets, on top of loopback and ephemeral ports. */
    public InProcessServers(RedisFixture redis, Map<String, Object> base) {
        this.redis = redis;
        this.base = base;
        this.connection = redis.client().connect();
    }

    /** A synchronous connection to the test's Redis, to look at what the servers wrote. */
    public RedisCommands<String, String> redis() {
        return connection.sync();
    }

    /** Starts a server with the base settings and {@code extra}; closed with the others even if start fails. */
    public IngestionServer start(Map<String, Object> extra) throws InterruptedException {
        Map<String, Object> settings = new HashMap<>(Map.of("redis.url", redis.uri(), "tcp-port", 0, "udp-port", 0,
                "http-port", 0, "health-port", 0, "bind-address", "127.0.0.1"));
        settings.putAll(base);
        settings.putAll(extra);
        IngestionServer server = new IngestionServer(SettingsLoader.load(settings));
        servers.add(server);
        return server.start();
    }

    /** A device connection to {@code server}'s TCP port, not yet logged in. */
    public DeviceClient connect(IngestionServer server) throws Exception {
        DeviceClient device = DeviceClient.connect(server.tcpAddress().getPort());
        devices.add(device);
        return device;
    }

    @Override
    public void close() throws Exception {
        for (DeviceClient d : devices) {
            d.close();
        }
        for (IngestionServer s : servers) {
            s.close();
        }
        connection.close();
    }
}
