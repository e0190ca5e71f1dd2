package org.fleetpipe.teltonika.testkit.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.api.StatefulRedisConnection;

@WithRedis
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisServerExtensionIT {

    // Static: JUnit makes a new instance per test, and the ordered tests below hand facts to each other.
    private static String uriSeenBeforeStop;

    private final RedisFixture injectedInConstructor;

    RedisServerExtensionIT(RedisFixture redis) {
        this.injectedInConstructor = redis;
    }

    @BeforeEach
    void writeSetupKey(RedisFixture redis) {
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            connection.sync().set("written-in-before-each", "yes");
        }
    }

    @Test
    @Order(1)
    void stop_whenTestStopsRedis_thenConnectionsFailUntilTheTestEnds(RedisFixture redis) {
        uriSeenBeforeStop = redis.uri();
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            connection.sync().set("left-behind", "by test 1");
        }

        redis.stop();

        assertThat(redis.isRunning()).isFalse();
        assertThatThrownBy(() -> redis.client().connect()).isInstanceOf(RedisConnectionException.class);
    }

    @Test
    @Order(2)
    void beforeEach_whenPreviousTestStoppedRedis_thenRunningAndEmptyOnTheSameAddress(RedisFixture redis) {
        assertThat(uriSeenBeforeStop).as("test 1 ran first").isNotNull();
        assertThat(redis.isRunning()).isTrue();
        assertThat(redis.uri()).isEqualTo(uriSeenBeforeStop);
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            assertThat(connection.sync().keys("*")).containsExactly("written-in-before-each");
        }
    }

    @Test
    @Order(3)
    void restart_whenDataWasWritten_thenSameAddressAndEmpty(RedisFixture redis) {
        String uri = redis.uri();

        redis.restart();

        assertThat(redis.isRunning()).isTrue();
        assertThat(redis.uri()).isEqualTo(uri);
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            assertThat(connection.sync().dbsize()).isZero();
        }
    }

    @Test
    @Order(4)
    void beforeEach_whenPreviousTestWroteKeys_thenOnlyThisTestsSetupKeyExists(RedisFixture redis) {
        try (StatefulRedisConnection<String, String> connection = redis.client().connect()) {
            connection.sync().set("from-test-4", "x");
            redis.flushAll();

            assertThat(connection.sync().dbsize()).isZero();
        }
    }

    @Test
    void resolveParameter_whenInjectedTwice_thenSameRedisAndClient(RedisFixture redis) {
        assertThat(redis).isSameAs(injectedInConstructor);
        assertThat(redis.client()).isSameAs(injectedInConstructor.client());
        assertThat(redis.uri()).startsWith("redis://");
        assertThat(redis.uri()).endsWith(":" + redis.port());
        assertThat(redis.description()).isNotBlank();
    }
}
