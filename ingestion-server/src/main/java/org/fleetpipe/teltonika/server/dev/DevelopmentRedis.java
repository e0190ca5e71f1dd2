package org.fleetpipe.teltonika.server.dev;

import org.fleetpipe.teltonika.server.config.SettingsException;

/**
 * The Redis of the development start ({@code REDIS_URL} unset): a redis-server child process from
 * redis-launcher. Only the development jar carries redis-launcher; the container image's slim jar does
 * not, and there an unset {@code REDIS_URL} is a configuration error.
 */
public interface DevelopmentRedis extends AutoCloseable {

    /** The class whose presence tells the two jars apart; touched by name only, never loaded here. */
    String LAUNCHER = "org.fleetpipe.teltonika.redislauncher.LocalRedisServer";

    /** Such as {@code redis://default:password@127.0.0.1:6379}. */
    String uri();

    /** Which binary runs, for the log line. */
    String description();

    @Override
    void close();

    /** Whether this build carries the launcher (the development jar does, the slim jar does not). */
    static boolean available() {
        try {
            Class.forName(LAUNCHER, false, DevelopmentRedis.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Starts a redis-server on {@code preferredPort} when it is free, else on any free port.
     *
     * @throws SettingsException when this build has no launcher: then REDIS_URL is required
     */
    static DevelopmentRedis start(int preferredPort) {
        requireAvailable();
        // Loaded only now: its references to redis-launcher resolve only in the development jar.
        return LocalDevelopmentRedis.start(preferredPort);
    }

    /** @throws SettingsException when this build has no launcher, so an unset REDIS_URL cannot work */
    static void requireAvailable() {
        if (!available()) {
            throw new SettingsException("REDIS_URL is not set (teltonika.server.redis.url), and this jar has no"
                    + " embedded Redis (the slim jar of the container image): set REDIS_URL, such as"
                    + " REDIS_URL=redis://redis:6379");
        }
    }
}
