package org.fleetpipe.teltonika.testkit.junit;

import io.lettuce.core.RedisClient;

/** The Redis a test runs against: one per test JVM, on the same address for the whole run. */
public interface RedisFixture {

    /** The address, such as {@code redis://127.0.0.1:40123}; stays the same across stop and start. */
    String uri();

    /** The TCP port of {@link #uri()}. */
    int port();

    /** A Lettuce client for {@link #uri()}, shared by all tests and shut down at the end; do not shut it down. */
    RedisClient client();

    /** Deletes every key; the extension already does this before each test. */
    void flushAll();

    /** Whether the Redis answers at the moment. */
    boolean isRunning();

    /**
     * Stops the Redis, keeping its address, to test what happens when Redis goes away. The extension starts it again
     * before the next test.
     *
     * @throws IllegalStateException when the Redis comes from {@code REDIS_URL} and is not ours to stop
     */
    void stop();

    /**
     * Starts the Redis again on the same address, empty, and returns once it answers.
     *
     * @throws IllegalStateException when the Redis comes from {@code REDIS_URL} and is not ours to start
     */
    void start();

    /**
     * Freezes the Redis process (SIGSTOP): it keeps its address and data but answers nothing, like
     * a Redis cut off by the network, until {@link #thaw()}; the extension thaws it before the next test.
     *
     * @throws IllegalStateException when the Redis is not a local process of this JVM
     */
    void freeze();

    /** Undoes {@link #freeze()}; keys whose TTL passed meanwhile expire now. */
    void thaw();

    /** {@link #stop()} then {@link #start()}. */
    void restart();

    /** Where this Redis comes from, for messages. */
    String description();
}
