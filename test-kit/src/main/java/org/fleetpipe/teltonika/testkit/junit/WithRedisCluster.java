package org.fleetpipe.teltonika.testkit.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.fleetpipe.teltonika.testkit.cluster.LocalRedisCluster;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the annotated test class a real Redis Cluster of its own (3 primaries, 3 replicas by default; see
 * {@link LocalRedisCluster}), started before its first test, emptied before each test and killed after its last,
 * and injects {@link LocalRedisCluster} parameters. The class is skipped where no redis-server binary exists.
 *
 * <p>A node a test kills stays dead for the rest of the class: order such a test last, or give it a class of its own.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisClusterExtension.class)
public @interface WithRedisCluster {

    /** Replicas of each of the 3 primaries: 2 leaves a promoted replica with a replica of its own. */
    int replicasPerPrimary() default 1;
}
