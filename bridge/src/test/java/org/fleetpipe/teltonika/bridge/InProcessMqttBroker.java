package org.fleetpipe.teltonika.bridge;

import io.moquette.BrokerConstants;
import io.moquette.broker.Server;
import io.moquette.broker.config.IConfig;
import io.moquette.broker.config.MemoryConfig;
import io.moquette.broker.security.IAuthenticator;
import io.moquette.broker.security.IAuthorizatorPolicy;
import io.moquette.broker.subscriptions.Topic;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.fleetpipe.teltonika.redislauncher.LoopbackPorts;

/**
 * A real MQTT 3.1.1 broker (Moquette) in this JVM on 127.0.0.1, state in memory only, that can be
 * stopped and started again on the same port. Users {@code bridge}/{@code bridge-secret} and
 * {@code reader}/{@code reader-secret}. While the bridge is paused, its connects are refused and
 * the broker takes its publishes without routing or PUBACKing them (Moquette's answer to a
 * publish it may not authorize), which leaves them in flight at the bridge.
 */
final class InProcessMqttBroker implements AutoCloseable {

    static final String BRIDGE_USER = "bridge";
    static final String BRIDGE_PASSWORD = "bridge-secret";
    private static final Map<String, String> USERS = Map.of(BRIDGE_USER, BRIDGE_PASSWORD, "reader", "reader-secret");

    private final int port;
    private final Path dataDirectory;
    private final AtomicInteger withheld = new AtomicInteger();
    private volatile boolean bridgePaused;
    private Server server;

    InProcessMqttBroker() throws IOException {
        port = LoopbackPorts.free();
        // Persistence is off; the directory only makes sure nothing lands in the working directory.
        dataDirectory = Files.createTempDirectory("moquette-");
        start();
    }

    /** Starts (again) on the same port, with nothing from any earlier run. */
    void start() throws IOException {
        Properties properties = new Properties();
        properties.setProperty(IConfig.HOST_PROPERTY_NAME, "127.0.0.1");
        properties.setProperty(IConfig.PORT_PROPERTY_NAME, Integer.toString(port));
        properties.setProperty(IConfig.WEB_SOCKET_PORT_PROPERTY_NAME, BrokerConstants.DISABLED_PORT_BIND);
        properties.setProperty(IConfig.PERSISTENCE_ENABLED_PROPERTY_NAME, "false");
        properties.setProperty(IConfig.DATA_PATH_PROPERTY_NAME, dataDirectory.toString());
        properties.setProperty(IConfig.ALLOW_ANONYMOUS_PROPERTY_NAME, "false");
        // Moquette reports usage to its authors' collector unless told not to; tests stay on loopback.
        properties.setProperty(IConfig.ENABLE_TELEMETRY_NAME, "false");
        properties.setProperty(IConfig.NETTY_MAX_BYTES_PROPERTY_NAME, Integer.toString(256 * 1024));
        // The reader's queue: Moquette drops beyond it, which would look like a bridge losing records.
        properties.setProperty(IConfig.SESSION_QUEUE_SIZE, "100000");
        properties.setProperty(IConfig.BUFFER_FLUSH_MS_PROPERTY_NAME,
                Integer.toString(BrokerConstants.IMMEDIATE_BUFFER_FLUSH));
        server = new Server();
        server.startServer(new MemoryConfig(properties), List.of(), null, authenticator(), authorizator());
    }

    /** Stops the broker: every connection closes, every session and queued message is gone. */
    void stop() {
        if (server != null) {
            server.stopServer();
            server = null;
        }
    }

    String url() {
        return "tcp://127.0.0.1:" + port;
    }

    /** Refuses the bridge's connects and withholds the PUBACK of its publishes until {@link #resumeBridge}. */
    void pauseBridge() {
        bridgePaused = true;
    }

    void resumeBridge() {
        bridgePaused = false;
    }

    /** Publishes of the bridge taken while it was paused: neither routed nor PUBACKed. */
    int withheld() {
        return withheld.get();
    }

    private IAuthenticator authenticator() {
        return (clientId, username, password) -> {
            String expected = username == null ? null : USERS.get(username);
            if (expected == null || BRIDGE_USER.equals(username) && bridgePaused) {
                return false;
            }
            return Arrays.equals(expected.getBytes(StandardCharsets.UTF_8), password);
        };
    }

    private IAuthorizatorPolicy authorizator() {
        return new IAuthorizatorPolicy() {
            @Override
            public boolean canWrite(Topic topic, String user, String client) {
                if (BRIDGE_USER.equals(user) && bridgePaused) {
                    withheld.incrementAndGet();
                    return false;
                }
                return true;
            }

            @Override
            public boolean canRead(Topic topic, String user, String client) {
                return true;
            }
        };
    }

    @Override
    public void close() throws IOException {
        stop();
        try (Stream<Path> files = Files.walk(dataDirectory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}
