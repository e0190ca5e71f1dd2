package org.fleetpipe.teltonika.server.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.config.SettingsLoader;

/** Starts the real server in-process against the test Redis, on loopback and free ports. */
final class ItServer {

    private ItServer() {
    }

    static IngestionServer start(RedisFixture redis) throws InterruptedException {
        return start(redis, false, Map.of());
    }

    /**
     * @param withUdp UDP off unless asked for: "udp-port = 0" means off, not "pick a free port",
     *                so a UDP test needs a concrete free port
     */
    static IngestionServer start(RedisFixture redis, boolean withUdp, Map<String, ?> extra)
            throws InterruptedException {
        Map<String, Object> overrides = new HashMap<>();
        overrides.put("redis.url", redis.uri());
        overrides.put("bind-address", "127.0.0.1");
        overrides.put("http-port", 0);
        overrides.put("health-port", 0);
        overrides.put("udp-port", 0);
        overrides.put("instance-id-prefix", "it");
        // Short enough that a stuck write fails a test in seconds, long enough for a busy 2-core box.
        overrides.put("redis.command-timeout", "3s");
        overrides.put("shutdown.grace", "3s");
        // The UDP tests about other things send from IMEIs that never logged in over TCP; the default,
        // tcp-known, is the subject of UdpIntakeAttackIT, which asks for it.
        overrides.put("admission.udp", "any");
        overrides.putAll(extra);
        ServerSettings settings = SettingsLoader.load(overrides);
        // The loader refuses tcp-port=0 (1..65535), so the ephemeral TCP port goes in here.
        settings = settings.withPorts(0, withUdp ? freeUdpPort() : 0, 0, 0);
        return new IngestionServer(settings).start();
    }

    static InetSocketAddress loopback(InetSocketAddress bound) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), bound.getPort());
    }

    // Racy in theory (another process could take it before the server binds), harmless in practice.
    private static int freeUdpPort() {
        try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
