package org.fleetpipe.teltonika.testkit.junit;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Provides one real Redis per test JVM, started on first use and stopped when the run ends; see {@link WithRedis}.
 *
 * <p>Chosen once: {@code REDIS_URL} if set, else a {@code redis:7-alpine} container if a Docker engine answers, else a
 * local redis-server process (the one on the PATH or the binary embedded in embedded-redis). Never skips: without a
 * Redis the tests fail with the reason. Before each test Redis is started again if a previous test stopped it, then
 * emptied.
 */
public final class RedisServerExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

    private static final Namespace NAMESPACE = Namespace.create(RedisServerExtension.class);

    /** The JVM-wide Redis, for other extensions; starts it on first use. */
    public static RedisFixture redis(ExtensionContext context) {
        return shared(context);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        // So that @BeforeAll methods find it running even if the previous class stopped it.
        shared(context).ensureRunning();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        SharedRedis redis = shared(context);
        redis.ensureRunning();
        redis.flushAll();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == RedisFixture.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return shared(extensionContext);
    }

    private static SharedRedis shared(ExtensionContext context) {
        // The root store lives as long as the test run and closes what it holds at the end.
        return context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(Provision.class, key -> new Provision(), Provision.class)
                .get();
    }

    // Remembers a failure so that each later test fails at once with the same reason instead of retrying for seconds.
    private static final class Provision implements AutoCloseable {
        private SharedRedis redis;
        private RuntimeException failure;

        synchronized SharedRedis get() {
            if (redis == null) {
                if (failure == null) {
                    try {
                        redis = SharedRedis.create();
                    } catch (RuntimeException e) {
                        failure = e;
                    }
                }
                if (failure != null) {
                    throw new IllegalStateException("no Redis for the tests: " + failure.getMessage(), failure);
                }
            }
            return redis;
        }

        @Override
        public synchronized void close() {
            if (redis != null) {
                redis.close();
                redis = null;
            }
        }
    }
}
