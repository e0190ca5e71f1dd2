package org.fleetpipe.teltonika.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.Test;

/** A poison entry, failed on --max-deliveries times, is dead-lettered and acknowledged; the rest flow on. */
@WithRedis
class DeadLetterIT {

    @Test
    void anEntryTheHandlerAlwaysFailsOn_isDeadLetteredAfterMaxDeliveries_andAcknowledged(RedisFixture redis)
            throws Exception {
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (StatefulRedisConnection<String, String> consumerConnection = redis.client().connect();
             StatefulRedisConnection<String, String> testConnection = redis.client().connect()) {
            RedisCommands<String, String> commands = testConnection.sync();
            commands.xadd("telemetry", Map.of("imei", "352093081452251", "ts", "1"));
            String poison = commands.xadd("telemetry", Map.of("imei", "490154203237518", "ts", "2", "io", "{bad"));
            commands.xadd("telemetry", Map.of("imei", "352093081452251", "ts", "3"));

            Map<String, Integer> handled = new ConcurrentHashMap<>();
            AtomicInteger poisonTries = new AtomicInteger();
            ConsumerOptions options = ConsumerOptions.parse(new String[] {"--group", "g", "--consumer", "c1",
                    "--claim-idle", "100ms", "--block", "100ms", "--progress", "0", "--max-deliveries", "3"});
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            TelemetryConsumer consumer = new TelemetryConsumer(consumerConnection.sync(), options, entry -> {
                if (entry.getId().equals(poison)) {
                    poisonTries.incrementAndGet();
                    throw new IllegalArgumentException("io is not JSON");
                }
                handled.merge(entry.getId(), 1, Integer::sum);
            }, new PrintStream(log, true, StandardCharsets.UTF_8));
            Future<ConsumerTotals> run = thread.submit(consumer::run);

            await().atMost(Duration.ofSeconds(20)).until(() -> commands.xlen("dlq:consumer:g") == 1
                    && commands.xpending("telemetry", "g").getCount() == 0);
            consumer.stop();
            ConsumerTotals totals = run.get(20, TimeUnit.SECONDS);

            assertThat(poisonTries).as("delivered, then claimed twice: three deliveries").hasValue(3);
            assertThat(handled).as("the others, once each").hasSize(2).allSatisfy((id, times) ->
                    assertThat(times).isEqualTo(1));
            assertThat(totals.deadLettered()).isEqualTo(1);
            assertThat(totals.failed()).isEqualTo(3);
            List<StreamMessage<String, String>> dead = commands.xrange("dlq:consumer:g",
                    io.lettuce.core.Range.create("-", "+"));
            Map<String, String> letter = dead.get(0).getBody();
            assertThat(letter).containsEntry("dlq_id", poison).containsEntry("dlq_stream", "telemetry")
                    .containsEntry("dlq_group", "g").containsEntry("dlq_consumer", "c1")
                    .containsEntry("dlq_deliveries", "3").containsEntry("imei", "490154203237518")
                    .containsEntry("ts", "2").containsEntry("io", "{bad");
            assertThat(letter.get("dlq_error")).contains("IllegalArgumentException", "io is not JSON");
            assertThat(log.toString(StandardCharsets.UTF_8)).contains("entry " + poison
                    + " not handled after 3 deliveries: moved to dlq:consumer:g and acknowledged");
        } finally {
            thread.shutdownNow();
        }
    }
}
