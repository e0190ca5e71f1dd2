package org.fleetpipe.teltonika.testkit.junit;

import io.lettuce.core.RedisURI;

/** A Redis given by {@code REDIS_URL}: used as is, never stopped or started by the tests. */
final class ExternalBackend implements RedisBackend {

    private final String uri;
    private final RedisURI parsed;

    ExternalBackend(String uri) {
        this.uri = uri;
        this.parsed = RedisURI.create(uri);
    }

    @Override
    public String uri() {
        return uri;
    }

    @Override
    public int port() {
        return parsed.getPort();
    }

    @Override
    public boolean isRunning() {
        // TLS (rediss://) cannot be probed with a plain socket; assume it is there and let commands tell.
        return parsed.isSsl() || RedisBackend.answers(parsed.getHost(), parsed.getPort());
    }

    @Override
    public void stop() {
        throw notOurs("stop");
    }

    @Override
    public void start() {
        throw notOurs("start");
    }

    private IllegalStateException notOurs(String what) {
        String state = isRunning() ? "" : " (it does not answer at the moment)";
        return new IllegalStateException("cannot " + what + " the Redis at REDIS_URL=" + uri + state + ": it is"
                + " external; unset REDIS_URL to let the tests run their own Redis");
    }

    @Override
    public String description() {
        return "external Redis from REDIS_URL";
    }

    @Override
    public void close() {
        // Not ours.
    }
}
