package org.fleetpipe.teltonika.testkit.junit;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

/** The JVM-wide Redis behind every {@link RedisFixture}: a backend plus a lazily created shared client. */
final class SharedRedis implements RedisFixture, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SharedRedis.class);
    private static final String TESTCONTAINERS = "org.testcontainers.DockerClientFactory";

    private final RedisBackend backend;
    private RedisClient client;

    private SharedRedis(RedisBackend backend) {
        this.backend = backend;
    }

    /** REDIS_URL if set, else a container if Docker answers, else a local redis-server process. */
    static SharedRedis create() {
        String url = System.getenv("REDIS_URL");
        if (url != null && !url.isBlank()) {
            return announce(new ExternalBackend(url.trim()));
        }
        RuntimeException containerFailure = null;
        if (dockerAvailable()) {
            try {
                return announce(ContainerBackend.startNew());
            } catch (RuntimeException e) {
                // Docker may be there without access to the image registry; a local process still serves.
                LOG.warn("Docker is available but the Redis container did not start, falling back to a local"
                        + " redis-server: {}", e.toString());
                containerFailure = e;
            }
        }
        try {
            return announce(LocalBackend.startNew());
        } catch (RuntimeException e) {
            if (containerFailure != null) {
                e.addSuppressed(containerFailure);
            }
            throw e;
        }
    }

    private static boolean dockerAvailable() {
        if (!onClasspath(TESTCONTAINERS)) {
            return false;
        }
        long started = System.nanoTime();
        boolean available;
        try {
            available = ContainerBackend.dockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            LOG.debug("Docker probe failed", e);
            available = false;
        }
        if (!available) {
            // Testcontainers has just logged an alarming ERROR; say that it is expected and harmless here.
            LOG.info("No Docker engine found (probe took {} ms), so Testcontainers' error above is expected;"
                    + " falling back to a local redis-server", (System.nanoTime() - started) / 1_000_000);
        }
        return available;
    }

    private static boolean onClasspath(String className) {
        try {
            Class.forName(className, false, SharedRedis.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static SharedRedis announce(RedisBackend backend) {
        LOG.info("Tests use Redis at {}: {}", backend.uri(), backend.description());
        return new SharedRedis(backend);
    }

    /** Makes sure Redis answers, starting it again if a previous test stopped it. */
    void ensureRunning() {
        if (backend.frozen()) {
            backend.thaw();
        }
        if (!backend.isRunning()) {
            backend.start();
        }
    }

    @Override
    public String uri() {
        return backend.uri();
    }

    @Override
    public int port() {
        return backend.port();
    }

    @Override
    public synchronized RedisClient client() {
        if (client == null) {
            RedisURI redisUri = RedisURI.create(backend.uri());
            // Lettuce's 60 s default would turn a Redis a test forgot to restart into a minute-long hang.
            redisUri.setTimeout(Duration.ofSeconds(10));
            client = RedisClient.create(redisUri);
        }
        return client;
    }

    @Override
    public void flushAll() {
        // A fresh connection: a long-lived one might still be waiting to reconnect after a stop or restart.
        try (StatefulRedisConnection<String, String> connection = client().connect()) {
            connection.sync().flushall();
        }
    }

    @Override
    public boolean isRunning() {
        return backend.isRunning();
    }

    @Override
    public void stop() {
        backend.stop();
    }

    @Override
    public void start() {
        backend.start();
    }

    @Override
    public void freeze() {
        backend.freeze();
    }

    @Override
    public void thaw() {
        backend.thaw();
    }

    @Override
    public void restart() {
        backend.stop();
        backend.start();
    }

    @Override
    public String description() {
        return backend.description();
    }

    @Override
    public synchronized void close() {
        try {
            if (client != null) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
                client = null;
            }
        } finally {
            backend.close();
        }
    }

    @Override
    public String toString() {
        return uri() + " (" + description() + ")";
    }
}
