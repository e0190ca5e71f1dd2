package org.fleetpipe.teltonika.testkit.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the annotated test class a real Redis, emptied before each test, and injects {@link RedisFixture} parameters.
 *
 * <p>Tests in other modules get it by depending on {@code org.fleetpipe:test-kit} (test scope). The Redis is shared by
 * every test in the JVM, so tests using it must not run in parallel with each other.
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisServerExtension.class)
public @interface WithRedis {
}
