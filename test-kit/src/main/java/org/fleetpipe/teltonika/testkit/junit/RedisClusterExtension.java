package org.fleetpipe.teltonika.testkit.junit;

import org.fleetpipe.teltonika.testkit.cluster.LocalRedisCluster;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Provides one {@link LocalRedisCluster} per test class; see {@link WithRedisCluster}. */
public final class RedisClusterExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

    private static final Namespace NAMESPACE = Namespace.create(RedisClusterExtension.class);

    /** The test class's cluster, for other extensions; starts it on first use. */
    public static LocalRedisCluster cluster(ExtensionContext context) {
        ExtensionContext owner = classContext(context);
        WithRedisCluster wanted = owner.getRequiredTestClass().getAnnotation(WithRedisCluster.class);
        int replicas = wanted == null ? 1 : wanted.replicasPerPrimary();
        return owner.getStore(NAMESPACE)
                .getOrComputeIfAbsent(Provision.class, key -> new Provision(replicas), Provision.class)
                .get();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        // Started here rather than at first injection, so that @BeforeAll methods find it running.
        cluster(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        cluster(context).flushAll();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == LocalRedisCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return cluster(extensionContext);
    }

    // The innermost class-level context: its store is closed, and the cluster with it, when the class is done.
    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext current = context;
        while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
            current = current.getParent().get();
        }
        return current;
    }

    // Remembers a failure so that each later test of the class fails at once with the same reason.
    private static final class Provision implements AutoCloseable {
        private final int replicasPerPrimary;
        private LocalRedisCluster cluster;
        private RuntimeException failure;

        Provision(int replicasPerPrimary) {
            this.replicasPerPrimary = replicasPerPrimary;
        }

        synchronized LocalRedisCluster get() {
            Assumptions.assumeTrue(LocalRedisCluster.findBinary().isPresent(),
                    "no redis-server binary for " + System.getProperty("os.name") + "/" + System.getProperty("os.arch")
                            + " (none on the PATH, none embedded in embedded-redis)");
            if (cluster == null) {
                if (failure == null) {
                    try {
                        cluster = LocalRedisCluster.builder().replicasPerPrimary(replicasPerPrimary).build().start();
                    } catch (RuntimeException e) {
                        failure = e;
                    }
                }
                if (failure != null) {
                    throw new IllegalStateException("no Redis Cluster for the tests: " + failure.getMessage(), failure);
                }
            }
            return cluster;
        }

        @Override
        public synchronized void close() {
            if (cluster != null) {
                cluster.close();
                cluster = null;
            }
        }
    }
}
