package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BridgeCommandTest {

    private static BridgeSettings parse(Map<String, String> environment, String... args) {
        BridgeCommand command = new BridgeCommand();
        new CommandLine(command).parseArgs(args);
        return command.settings(environment);
    }

    @Test
    void kafka_defaults_groupIsTheSinksName_topicAndLimitsAsDocumented() {
        BridgeSettings settings = parse(Map.of(), "--sink", "kafka", "--redis-url", "redis://127.0.0.1:6379",
                "--bootstrap-servers", "127.0.0.1:9092", "--consumer", "pod-1");

        assertThat(settings.group()).isEqualTo("kafka");
        assertThat(settings.kafka().topic()).isEqualTo("teltonika.records");
        assertThat(settings.batch()).isEqualTo(500);
        assertThat(settings.lanes()).isEqualTo(4);
        assertThat(settings.claimIdle()).isEqualTo(Duration.ofSeconds(60));
        assertThat(settings.from()).isEmpty();
        assertThat(settings.consumer()).isEqualTo("pod-1");
        assertThat(settings.partitions()).as("as the servers' layout key says").isZero();
    }

    @Test
    void partitions_overrideTheLayoutKey_withinTheServersBound() {
        assertThat(parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h/",
                "--partitions", "16").partitions()).isEqualTo(16);
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h/",
                "--partitions", "0")).hasMessageContaining("--partitions must be 1..1024");
    }

    @Test
    void leaseTtl_defaultsTo15s_within1sTo10m() {
        assertThat(parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h/").leaseTtl())
                .isEqualTo(Duration.ofSeconds(15));
        assertThat(parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h/",
                "--lease-ttl", "3s").leaseTtl()).isEqualTo(Duration.ofSeconds(3));
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h/",
                "--lease-ttl", "500ms")).hasMessageContaining("--lease-ttl must be 1s..10m");
    }

    @Test
    void durations_readTheToolsOneGrammar_andABadOneIsRefusedByPicocli() {
        BridgeSettings settings = parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h/",
                "--claim-idle", "1m30s", "--lease-ttl", "PT20S", "--shutdown-grace", "1.5m");
        assertThat(settings.claimIdle()).isEqualTo(Duration.ofSeconds(90));
        assertThat(settings.leaseTtl()).isEqualTo(Duration.ofSeconds(20));
        assertThat(settings.shutdownGrace()).isEqualTo(Duration.ofSeconds(90));
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h/",
                "--max-backoff", "soon")).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--max-backoff").hasMessageContaining("'soon' is not a duration");
    }

    @Test
    void http_takesHeaders_andTheAuthorizationSecretFromTheEnvironment() {
        BridgeSettings settings = parse(Map.of("BRIDGE_HTTP_AUTHORIZATION", "Bearer s3cret"), "--sink", "http",
                "--redis-url", "redis://x:1", "--url", "https://platform.example/ingest", "--header", "X-Fleet: a",
                "--http-timeout", "3s");

        assertThat(settings.http().headers()).containsEntry("X-Fleet", "a")
                .containsEntry("Authorization", "Bearer s3cret");
        assertThat(settings.http().timeout()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void from_acceptsAnEntryId_anIsoTime_or0() {
        assertThat(parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h/",
                "--from", "1795502830415-3").from()).contains("1795502830415-3");
        assertThat(parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h/",
                "--from", "2026-11-26T08:00:00Z").from()).contains("1795680000000-0");
        assertThat(parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h/",
                "--from", "0").from()).contains("0-0");
        assertThat(parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h/",
                "--from", "end").from()).contains("$");
    }

    @Test
    void rebind_isOffUnlessSaid_andTheBindingNamesTheSinkWithoutSecrets() {
        BridgeSettings settings = parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url",
                "https://user:pw@platform.example:8443/ingest?token=t");
        assertThat(settings.rebind()).isFalse();
        assertThat(settings.sinkTarget()).isEqualTo("http https://platform.example:8443/ingest");
        assertThat(parse(Map.of(), "--sink", "kafka", "--redis-url", "redis://x:1", "--bootstrap-servers", "k:9092",
                "--rebind").sinkTarget()).isEqualTo("kafka topic=teltonika.records");
        assertThat(parse(Map.of(), "--sink", "kafka", "--redis-url", "redis://x:1", "--bootstrap-servers", "k:9092",
                "--rebind").rebind()).isTrue();
    }

    @Test
    void badValues_areRefusedWithALineNamingTheOption() {
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "amqp", "--redis-url", "redis://x:1"))
                .hasMessageContaining("--sink must be kafka, http, mqtt or postgres");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "kafka"))
                .hasMessageContaining("REDIS_URL");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "kafka", "--redis-url", "redis://x:1"))
                .hasMessageContaining("--bootstrap-servers");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "ftp://h"))
                .hasMessageContaining("--url must be http");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "mqtt", "--redis-url", "redis://x:1", "--mqtt-url",
                "tcp://h:1883", "--topic", "fleet/records")).hasMessageContaining("{imei}");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h",
                "--from", "yesterday")).hasMessageContaining("--from must be");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h",
                "--claim-idle", "soon")).hasMessageContaining("duration");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "http", "--redis-url", "redis://x:1", "--url", "http://h",
                "--batch", "0")).hasMessageContaining("--batch");
    }

    @Test
    void kafkaSasl_thePasswordComesFromTheEnvironmentOrAFile_neverAnOption() throws Exception {
        String[] kafka = {"--sink", "kafka", "--redis-url", "redis://x:1", "--bootstrap-servers", "k:9093",
            "--kafka-sasl-mechanism", "scram-sha-512", "--kafka-sasl-username", "bridge"};
        Map<String, String> properties = parse(Map.of("KAFKA_SASL_PASSWORD", "pa\"ss"), kafka).kafka().properties();
        assertThat(properties).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism",
                "SCRAM-SHA-512").containsEntry("sasl.jaas.config", "org.apache.kafka.common.security.scram"
                + ".ScramLoginModule required username=\"bridge\" password=\"pa\\\"ss\";");

        java.nio.file.Path file = java.nio.file.Files.createTempFile("sasl", ".txt");
        try {
            java.nio.file.Files.writeString(file, "from-a-file\n");
            String[] withFile = java.util.stream.Stream.concat(java.util.Arrays.stream(kafka),
                    java.util.stream.Stream.of("--kafka-sasl-password-file", file.toString(), "--kafka-property",
                            "security.protocol=SASL_PLAINTEXT")).toArray(String[]::new);
            Map<String, String> fromFile = parse(Map.of(), withFile).kafka().properties();
            assertThat(fromFile.get("sasl.jaas.config")).contains("password=\"from-a-file\";");
            assertThat(fromFile).containsEntry("security.protocol", "SASL_PLAINTEXT");
        } finally {
            java.nio.file.Files.delete(file);
        }

        assertThatThrownBy(() -> parse(Map.of(), kafka)).hasMessageContaining("needs a password");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "kafka", "--redis-url", "redis://x:1",
                "--bootstrap-servers", "k:9093", "--kafka-property",
                "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required password=\"x\";"))
                .hasMessageContaining("holds a secret");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "kafka", "--redis-url", "redis://x:1",
                "--bootstrap-servers", "k:9093", "--kafka-property", "ssl.keystore.password=x"))
                .hasMessageContaining("holds a secret");
        assertThatThrownBy(() -> new CommandLine(new BridgeCommand()).parseArgs(java.util.stream.Stream.concat(
                java.util.Arrays.stream(kafka), java.util.stream.Stream.of("--kafka-sasl-password", "x"))
                .toArray(String[]::new)))
                .as("there is no such option").isInstanceOf(CommandLine.UnmatchedArgumentException.class);
    }

    @Test
    void postgres_thePasswordComesFromTheEnvironmentOrAFile_neverTheUrl_andTheBindingShowsNoSecret() throws Exception {
        String[] postgres = {"--sink", "postgres", "--redis-url", "redis://x:1", "--url",
            "jdbc:postgresql://db1:5432,db2:5432/fleet?sslmode=verify-full&targetServerType=primary",
            "--postgres-user", "bridge"};
        BridgeSettings settings = parse(Map.of("POSTGRES_PASSWORD", "s3cret"), postgres);
        assertThat(settings.group()).isEqualTo("postgres");
        assertThat(settings.postgres().table()).isEqualTo("telemetry");
        assertThat(settings.postgres().user()).isEqualTo("bridge");
        assertThat(settings.postgres().password()).isEqualTo("s3cret");
        assertThat(settings.postgres().toString()).doesNotContain("s3cret");
        assertThat(settings.sinkTarget()).isEqualTo("postgres jdbc:postgresql://db1:5432,db2:5432/fleet table=telemetry");
        assertThat(parse(Map.of(), postgres).postgres().password()).as("trust or certificate login").isNull();

        java.nio.file.Path file = java.nio.file.Files.createTempFile("pg", ".txt");
        try {
            java.nio.file.Files.writeString(file, "from-a-file\n");
            String[] withFile = java.util.stream.Stream.concat(java.util.Arrays.stream(postgres),
                    java.util.stream.Stream.of("--postgres-password-file", file.toString(), "--table", "fleet.positions"))
                    .toArray(String[]::new);
            BridgeSettings fromFile = parse(Map.of(), withFile);
            assertThat(fromFile.postgres().password()).isEqualTo("from-a-file");
            assertThat(fromFile.sinkTarget()).endsWith("/fleet table=fleet.positions");
            assertThatThrownBy(() -> parse(Map.of("POSTGRES_PASSWORD", "x"), withFile))
                    .hasMessageContaining("give the password once: POSTGRES_PASSWORD or --postgres-password-file");
        } finally {
            java.nio.file.Files.delete(file);
        }

        assertThatThrownBy(() -> parse(Map.of(), "--sink", "postgres", "--redis-url", "redis://x:1", "--url",
                "jdbc:postgresql://db/fleet?user=bridge&password=s3cret")).hasMessageContaining("--url holds a password")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "postgres", "--redis-url", "redis://x:1", "--url",
                "jdbc:postgresql://db/fleet?sslpassword=k")).hasMessageContaining("--url holds a password");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "postgres", "--redis-url", "redis://x:1", "--url",
                "jdbc:postgresql://bridge:s3cret@db/fleet")).hasMessageContaining("--url holds a password");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "postgres", "--redis-url", "redis://x:1"))
                .hasMessageContaining("--url (or BRIDGE_URL) is required with --sink postgres");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "postgres", "--redis-url", "redis://x:1", "--url",
                "postgres://db/fleet")).hasMessageContaining("--url for postgres must be jdbc:postgresql://");
        assertThatThrownBy(() -> parse(Map.of(), "--sink", "postgres", "--redis-url", "redis://x:1", "--url",
                "jdbc:postgresql://db/fleet", "--table", "Telemetry; DROP TABLE x")).hasMessageContaining("--table must be");
        assertThatThrownBy(() -> new CommandLine(new BridgeCommand()).parseArgs(java.util.stream.Stream.concat(
                java.util.Arrays.stream(postgres), java.util.stream.Stream.of("--postgres-password", "x"))
                .toArray(String[]::new)))
                .as("there is no such option").isInstanceOf(CommandLine.UnmatchedArgumentException.class);
    }
}
