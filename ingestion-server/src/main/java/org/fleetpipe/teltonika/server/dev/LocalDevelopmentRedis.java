package org.fleetpipe.teltonika.server.dev;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.fleetpipe.teltonika.redislauncher.LocalRedisServer;

/**
 * redis-launcher's {@link LocalRedisServer} as the development Redis, with a random password; loaded
 * only when redis-launcher is there.
 */
final class LocalDevelopmentRedis implements DevelopmentRedis {

    private final LocalRedisServer server;

    private LocalDevelopmentRedis(LocalRedisServer server) {
        this.server = server;
    }

    static DevelopmentRedis start(int preferredPort) {
        // Random per start: any local user could otherwise read and write the development data.
        byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        LocalRedisServer.Builder builder = LocalRedisServer.builder().password(HexFormat.of().formatHex(secret));
        if (preferredPort > 0 && portFree(preferredPort)) {
            builder.port(preferredPort);
        }
        return new LocalDevelopmentRedis(builder.build().start());
    }

    @Override
    public String uri() {
        return server.uri();
    }

    @Override
    public String description() {
        return server.binary().description();
    }

    @Override
    public void close() {
        server.close();
    }

    private static boolean portFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
