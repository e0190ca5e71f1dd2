package org.fleetpipe.teltonika.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/** The Lettuce connection's options, against a real Redis. */
@WithRedis
class RedisConnectorIT {

    @Test
    void requestQueue_whenRedisStallsAndTheQueueIsFull_thenFurtherCommandsFailAtOnce(RedisFixture redis)
            throws Exception {
        try (RedisConnector connector = RedisConnector.connect(redis.uri(), Duration.ofSeconds(30),
                CommandLatencyRecorder.disabled(), 100);
             StatefulRedisConnection<String, String> operator = redis.client().connect()) {
            // Long enough that nothing the test waits for below can be the pause ending.
            operator.sync().clientPause(4_000);
            List<CompletableFuture<String>> commands = new ArrayList<>();
            for (int i = 0; i < 150; i++) {
                commands.add(connector.connection().async().ping().toCompletableFuture());
            }

            // Those past the queue fail at once, long before the pause ends; none waits in the heap.
            // Lettuce refuses them on its I/O thread, so the count is awaited, not read at once.
            await().atMost(Duration.ofSeconds(3)).until(() ->
                    commands.stream().filter(CompletableFuture::isCompletedExceptionally).count() == 50);
            assertThat(commands.subList(0, 100)).as("queued, waiting for Redis").noneMatch(CompletableFuture::isDone);
            ExecutionException refused = null;
            try {
                commands.get(149).get(1, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                refused = e;
            }
            assertThat(refused).isNotNull();
            // Lettuce says "Request queue size exceeded" for a command refused before it was written,
            // "Internal stack size exceeded" once the queued ones were flushed and await their answers:
            // the same bound either way, and which one depends on when its I/O thread flushed.
            assertThat(refused.getCause().getMessage()).containsAnyOf("Request queue size exceeded",
                    "Internal stack size exceeded: 100");
            // The first hundred are answered when Redis resumes.
            CompletableFuture.allOf(commands.subList(0, 100).toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        }
    }
}
