package org.fleetpipe.teltonika.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import org.fleetpipe.teltonika.cli.DurationText;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

class ConsumerOptionsTest {

    @Test
    void noArguments_thenDefaultsAndRedisUrlFromTheEnvironment() {
        ConsumerOptions o = ConsumerOptions.parse();

        assertThat(o.redisUrl()).isEqualTo(Objects.requireNonNullElse(System.getenv("REDIS_URL"),
                "redis://127.0.0.1:6379"));
        assertThat(o.stream()).isEqualTo("telemetry");
        assertThat(o.partitions()).as("as the servers' layout key says").isZero();
        assertThat(o.group()).isEqualTo("reference");
        assertThat(o.consumer()).isNotBlank();
        assertThat(o.from()).isEqualTo("0");
        assertThat(o.count()).isEqualTo(500);
        assertThat(o.block()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.claimIdle()).isEqualTo(Duration.ofSeconds(60));
        assertThat(o.progress()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.untilIdle()).isZero();
        assertThat(o.duration()).isZero();
        assertThat(o.maxEntries()).isZero();
        assertThat(o.jsonLines()).isFalse();
    }

    @Test
    void everyOption_thenParsed() {
        ConsumerOptions o = ConsumerOptions.parse("--redis-url", "redis://x:2", "--stream", "ns:telemetry",
                "--partitions", "16", "--group", "g", "--consumer", "c", "--from", "$", "--count", "10", "--block",
                "500ms", "--claim-idle", "5m", "--progress", "0", "--until-idle", "3s", "--duration", "1h",
                "--max-entries", "7", "--output", "jsonl", "--max-deliveries", "3", "--dead-letter-stream",
                "ns:dlq:consumer:g", "--models-hash", "ns:models");

        assertThat(o).isEqualTo(new ConsumerOptions("redis://x:2", "ns:telemetry", 16, "g", "c", "$", 10,
                Duration.ofMillis(500), Duration.ofMinutes(5), Duration.ZERO, Duration.ofSeconds(3), Duration.ofHours(1),
                7, true, 3, "ns:dlq:consumer:g", "ns:models"));
    }

    @Test
    void durations_readTheToolsOneGrammar() {
        ConsumerOptions o = ConsumerOptions.parse("--claim-idle", "1m30s", "--until-idle", "PT2S", "--block", "0.5s");

        assertThat(o.claimIdle()).isEqualTo(Duration.ofSeconds(90));
        assertThat(o.untilIdle()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.block()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void modelsHash_byDefaultBesideTheStream_inItsNamespace() {
        assertThat(ConsumerOptions.parse().modelsHash()).isEqualTo("devices:models");
        assertThat(ConsumerOptions.parse("--stream", "fleet-a:telemetry").modelsHash())
                .isEqualTo("fleet-a:devices:models");
        assertThat(ConsumerOptions.parse("--stream", "other").modelsHash()).isEqualTo("devices:models");
    }

    @Test
    void deadLetters_byDefaultAfterFiveDeliveries_inAStreamNamedForTheGroup() {
        ConsumerOptions o = ConsumerOptions.parse("--group", "billing");

        assertThat(o.maxDeliveries()).isEqualTo(5);
        assertThat(o.deadLetterStream()).isEqualTo("dlq:consumer:billing");
        assertThatThrownBy(() -> ConsumerOptions.parse("--max-deliveries", "0"))
                .hasMessageContaining("--max-deliveries must be 1..1000, got 0");
        assertThatThrownBy(() -> ConsumerOptions.parse("--dead-letter-stream", "telemetry"))
                .hasMessageContaining("--dead-letter-stream must not be the stream read");
    }

    @Test
    void badValues_thenOneClearMessage() {
        assertRefused("--from must be 0 or $", "--from", "1");
        assertRefused("--partitions must be 1..1024, got 1025", "--partitions", "1025");
        assertRefused("--count must be 1..100000, got 0", "--count", "0");
        assertRefused("--count", "--count", "many");
        assertRefused("'2x' is not a duration", "--block", "2x");
        assertRefused("--block must be more than 0", "--block", "0");
        assertRefused("--output", "--output", "xml");
        assertRefused("--group", "--group");
        assertRefused("--nope", "--nope", "1");
        assertThat(ConsumerOptions.parse("--output", "JSONL").jsonLines()).isTrue();
    }

    @Test
    void aRepeatedOption_thenTheLastWins() {
        assertThat(ConsumerOptions.parse("--group", "a", "--group", "b").group()).isEqualTo("b");
        assertThat(ConsumerOptions.parse("--block", "1s", "--block", "3s").block()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void everyOption_isATypedField_notASetter() {
        assertThat(Arrays.stream(ConsumerCommand.class.getDeclaredMethods())
                .map(m -> m.getAnnotation(Option.class)).filter(Objects::nonNull)).isEmpty();
        assertThat(new ConsumerCommand().commandLine().getCommandSpec().options()).hasSize(18)
                .allSatisfy(option -> assertThat(option.setter().toString()).as(option.longestName())
                        .contains("FieldBinding"));
    }

    @Test
    void help_thenTheUsageOnStdout_exit0_andABadValue_theReasonAndTheUsageOnStderr_exit2() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);

        assertThat(ReferenceConsumerMain.run(new String[] {"--help"}, o, e)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("usage: java -jar reference-consumer.jar [options]")
                .contains("--dead-letter-stream", DurationText.HELP, "Exit code");
        assertThat(err.size()).isZero();

        out.reset();
        assertThat(ReferenceConsumerMain.run(new String[] {"--count", "0"}, o, e)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("--count must be 1..100000, got 0")
                .contains("usage: java -jar reference-consumer.jar");
        assertThat(out.size()).isZero();
    }

    private static void assertRefused(String expected, String... args) {
        assertThatThrownBy(() -> ConsumerOptions.parse(args)).isInstanceOf(ParameterException.class)
                .hasMessageContaining(expected);
    }
}
