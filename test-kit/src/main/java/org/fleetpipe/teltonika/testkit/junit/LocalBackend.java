package org.fleetpipe.teltonika.testkit.junit;

import org.fleetpipe.teltonika.redislauncher.LocalRedisServer;

/** A redis-server child process of the test JVM. */
final class LocalBackend implements RedisBackend {

    private final LocalRedisServer server;

    private LocalBackend(LocalRedisServer server) {
        this.server = server;
    }

    static RedisBackend startNew() {
        LocalRedisServer server = LocalRedisServer.builder().build();
        server.start();
        return new LocalBackend(server);
    }

    @Override
    public String uri() {
        return server.uri();
    }

    @Override
    public int port() {
        return server.port();
    }

    @Override
    public boolean isRunning() {
        return server.isRunning();
    }

    @Override
    public void stop() {
        server.stop();
    }

    @Override
    public void start() {
        server.start();
    }

    @Override
    public void freeze() {
        server.pause();
    }

    @Override
    public void thaw() {
        server.resume();
    }

    @Override
    public boolean frozen() {
        return server.isPaused();
    }

    @Override
    public String description() {
        return "local redis-server process (" + server.binary().description() + ")";
    }

    @Override
    public void close() {
        server.close();
    }
}
