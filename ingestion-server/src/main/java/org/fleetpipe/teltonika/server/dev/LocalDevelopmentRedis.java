package org.fleetpipe.teltonika.server.dev;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.fleetpipe.teltonika.testkit.LocalRedisServer;

/** The test-kit's {@link LocalRedisServer} as the development Redis; loaded only when the test-kit is there. */
final class LocalDevelopmentRedis implements DevelopmentRedis {

    private final LocalRedisServer server;

    private LocalDevelopmentRedis(LocalRedisServer server) {
        this.server = server;
    }

    static DevelopmentRedis start(int preferredPort) {
        LocalRedisServer.Builder builder = LocalRedisServer.builder();
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
