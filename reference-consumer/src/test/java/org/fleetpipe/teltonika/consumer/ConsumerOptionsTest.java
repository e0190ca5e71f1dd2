package org.fleetpipe.teltonika.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsumerOptionsTest {

    @Test
    void noArguments_thenDefaultsAndRedisUrlFromTheEnvironment() {
        ConsumerOptions o = ConsumerOptions.parse(new String[0], Map.of("REDIS_URL", "redis://h:1"));

        assertThat(o.redisUrl()).isEqualTo("redis://h:1");
        assertThat(o.stream()).isEqualTo("telemetry");
        assertThat(o.partitions()).as("as the servers' layout key says").isZero();
        assertThat(o.group()).isEqualTo("reference");
        assertThat(o.from()).isEqualTo("0");
        assertThat(o.count()).isEqualTo(500);
        assertThat(o.block()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.claimIdle()).isEqualTo(Duration.ofSeconds(60));
        assertThat(o.untilIdle()).isZero();
        assertThat(o.jsonLines()).isFalse();
    }

    @Test
    void everyOption_thenParsed() {
        ConsumerOptions o = ConsumerOptions.parse(new String[] {"--redis-url", "redis://x:2", "--stream", "ns:telemetry",
                "--partitions", "16", "--group", "g", "--consumer", "c", "--from", "$", "--count", "10", "--block", "500ms", "--claim-idle",
                "5m", "--progress", "0", "--until-idle", "3s", "--duration", "1h", "--max-entries", "7", "--output",
                "jsonl", "--max-deliveries", "3", "--dead-letter-stream", "ns:dlq:consumer:g", "--models-hash", "ns:models"},
                Map.of());

        assertThat(o).isEqualTo(new ConsumerOptions("redis://x:2", "ns:telemetry", 16, "g", "c", "$", 10,
                Duration.ofMillis(500), Duration.ofMinutes(5), Duration.ZERO, Duration.ofSeconds(3), Duration.ofHours(1),
                7, true, 3, "ns:dlq:consumer:g", "ns:models"));
    }

    @Test
    void modelsHash_byDefaultBesideTheStream_inItsNamespace() {
        assertThat(ConsumerOptions.parse(new String[] {}, Map.of()).modelsHash()).isEqualTo("devices:models");
        assertThat(ConsumerOptions.parse(new String[] {"--stream", "fleet-a:telemetry"}, Map.of()).modelsHash())
                .isEqualTo("fleet-a:devices:models");
        assertThat(ConsumerOptions.parse(new String[] {"--stream", "other"}, Map.of()).modelsHash())
                .isEqualTo("devices:models");
    }

    @Test
    void deadLetters_byDefaultAfterFiveDeliveries_inAStreamNamedForTheGroup() {
        ConsumerOptions o = ConsumerOptions.parse(new String[] {"--group", "billing"}, Map.of());

        assertThat(o.maxDeliveries()).isEqualTo(5);
        assertThat(o.deadLetterStream()).isEqualTo("dlq:consumer:billing");
        assertThatThrownBy(() -> ConsumerOptions.parse(new String[] {"--max-deliveries", "0"}, Map.of()))
                .hasMessageContaining("--max-deliveries must be a whole number from 1 to 1000");
        assertThatThrownBy(() -> ConsumerOptions.parse(new String[] {"--dead-letter-stream", "telemetry"}, Map.of()))
                .hasMessageContaining("--dead-letter-stream must not be the stream read");
    }

    @Test
    void badValues_thenOneClearMessage() {
        assertThatThrownBy(() -> ConsumerOptions.parse(new String[] {"--from", "1"}, Map.of()))
                .hasMessageContaining("--from must be 0 or $");
        assertThatThrownBy(() -> ConsumerOptions.parse(new String[] {"--partitions", "1025"}, Map.of()))
                .hasMessageContaining("--partitions must be a whole number from 1 to 1024");
        assertThatThrownBy(() -> ConsumerOptions.parse(new String[] {"--count", "0"}, Map.of()))
                .hasMessageContaining("--count must be a whole number");
        assertThatThrownBy(() -> ConsumerOptions.parse(new String[] {"--block", "2x"}, Map.of()))
                .hasMessageContaining("--block must be a duration");
        assertThatThrownBy(() -> ConsumerOptions.parse(new String[] {"--block", "0"}, Map.of()))
                .hasMessageContaining("--block must be more than 0");
        assertThatThrownBy(() -> ConsumerOptions.parse(new String[] {"--group"}, Map.of()))
                .hasMessageContaining("--group needs a value");
        assertThatThrownBy(() -> ConsumerOptions.parse(new String[] {"--nope", "1"}, Map.of()))
                .hasMessageContaining("unknown option --nope");
    }

    @Test
    void help_thenTheUsage_andTheFirstOfTwoMistakes() {
        assertThatThrownBy(() -> ConsumerOptions.parse(new String[] {"--help"}, Map.of()))
                .hasMessageStartingWith("usage: java -jar reference-consumer.jar [options]")
                .hasMessageContaining("--dead-letter-stream").hasMessageContaining("Durations: 500ms");
        assertThatThrownBy(() -> ConsumerOptions.parse(new String[] {"--nope", "1", "--count", "0"}, Map.of()))
                .hasMessageStartingWith("unknown option --nope\nusage:");
        assertThat(ConsumerOptions.parse(new String[] {"--group", "a", "--group", "b"}, Map.of()).group()).isEqualTo("b");
    }
}
