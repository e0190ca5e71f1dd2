package org.fleetpipe.teltonika.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigResolveOptions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.registry.HeartbeatDeleteMeans;
import org.fleetpipe.teltonika.server.ops.PurgeMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Defaults, overrides and refusals of the settings. Environment variables cannot be set from
 * inside the JVM, so overrides go through the loader's test map, and the env mapping itself is
 * checked by resolving env-overrides.conf against a made-up environment.
 */
class SettingsLoaderTest {

    /** Contract env var -> setting key it overrides. */
    private static final Map<String, String> CONTRACT_ENV = Map.ofEntries(
            Map.entry("TCP_PORT", "tcp-port"),
            Map.entry("UDP_PORT", "udp-port"),
            Map.entry("HTTP_PORT", "http-port"),
            Map.entry("REDIS_URL", "redis.url"),
            Map.entry("REDIS_NAMESPACE", "redis.namespace"),
            Map.entry("INSTANCE_ID", "instance-id-prefix"),
            Map.entry("IMEI_LUHN_CHECK", "imei-luhn-check"),
            Map.entry("HEARTBEAT_TTL_MS", "heartbeat.ttl"),
            Map.entry("HEARTBEAT_INTERVAL_MS", "heartbeat.interval"),
            Map.entry("JANITOR_INTERVAL_MS", "janitor.interval"),
            Map.entry("JANITOR_DRY_RUN", "janitor.dry-run"),
            Map.entry("API_TOKEN", "api-token"));

    /** A default, unless this machine's environment overrides it (a CI may set REDIS_URL for the ITs). */
    private static String envOr(String variable, String fallback) {
        String value = System.getenv(variable);
        return value == null ? fallback : value;
    }

    @Test
    void load_whenNothingOverridden_thenContractDefaults() {
        ServerSettings s = SettingsLoader.load();

        assertThat(s.listeners().tcpPort()).isEqualTo(Integer.parseInt(envOr("TCP_PORT", "5027")));
        assertThat(s.listeners().udpPort()).isEqualTo(Integer.parseInt(envOr("UDP_PORT", "5027")));
        assertThat(s.http().port()).isEqualTo(Integer.parseInt(envOr("HTTP_PORT", "8080")));
        assertThat(s.redis().url()).isEqualTo(Optional.ofNullable(System.getenv("REDIS_URL")).map(String::trim)
                .filter(u -> !u.isEmpty()));
        assertThat(s.devices().imeiLuhnCheck()).isEqualTo(Boolean.parseBoolean(envOr("IMEI_LUHN_CHECK", "true")));
    }

    @Test
    void load_whenNothingOverridden_thenEveryValueFromReferenceConf() {
        Config ref = ConfigFactory.parseResources(SettingsLoader.class, "/reference.conf")
                .resolve().getConfig("teltonika.server");

        ServerSettings s = SettingsLoader.load();

        assertThat(s.listeners().bindAddress()).isEqualTo(envOr("BIND_ADDRESS", ref.getString("bind-address")));
        assertThat(s.redis().commandTimeout()).isEqualTo(ref.getDuration("redis.command-timeout"));
        assertThat(s.redis().namespace()).isEqualTo(envOr("REDIS_NAMESPACE", ref.getString("redis.namespace")));
        assertThat(s.redis().embeddedPort()).isEqualTo(ref.getInt("redis.embedded-port"));
        assertThat(s.instance().idPrefix()).isEqualTo(envOr("INSTANCE_ID", ref.getString("instance-id-prefix")));
        assertThat(s.devices().decodeLimits()).isEqualTo(new DecodeLimits(
                ref.getInt("limits.max-frame-bytes"),
                ref.getInt("limits.max-records-per-packet"),
                ref.getInt("limits.max-io-per-record"),
                ref.getInt("limits.max-variable-io-bytes"),
                DecodeLimits.DEFAULTS.maxLoginBytes()));
        assertThat(ref.getString("limits.max-connections")).isEqualTo("auto");
        assertThat(s.devices().maxConnections()).isEqualTo(ConnectionBudget.auto(Runtime.getRuntime().maxMemory()));
        assertThat(ref.getInt("io-threads")).isZero();
        assertThat(s.listeners().ioThreadCount()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(s.devices().maxQueuedFrames()).isEqualTo(ref.getInt("limits.max-queued-frames"));
        assertThat(s.devices().maxUdpInFlight()).isEqualTo(ref.getInt("limits.max-udp-in-flight"));
        assertThat(s.devices().loginTimeout()).isEqualTo(ref.getDuration("timeouts.login"));
        assertThat(s.devices().readIdleTimeout()).isEqualTo(ref.getDuration("timeouts.read-idle"));
        assertThat(s.telemetry().retention().maxLenWithoutGroups()).isEqualTo(ref.getLong("telemetry.stream-max-len"));
        assertThat(s.telemetry().deadLetterMaxEntries()).isEqualTo(ref.getInt("dead-letters.max-entries"));
        assertThat(s.telemetry().deadLetterMaxFrameBytes()).isEqualTo(ref.getInt("dead-letters.max-frame-bytes"));
        assertThat(s.telemetry().clockSkewFuture()).isEqualTo(Duration.ofMinutes(10))
                .isEqualTo(ref.getDuration("telemetry.clock-skew-future"));
        assertThat(s.shutdown().grace()).isEqualTo(ref.getDuration("shutdown.grace"));
    }

    @Test
    void referenceConf_whenRead_thenDocumentedDefaultValues() {
        // Pins reference.conf itself, so a changed default is a visible decision, not a silent edit.
        Config ref = ConfigFactory.parseResources(SettingsLoader.class, "/reference.conf")
                .resolve().getConfig("teltonika.server");

        assertThat(ref.getInt("tcp-port")).isEqualTo(5027);
        assertThat(ref.getInt("udp-port")).isEqualTo(5027);
        assertThat(ref.getInt("http-port")).isEqualTo(8080);
        assertThat(ref.getString("http.bind-address")).as("empty: BIND_ADDRESS").isEmpty();
        assertThat(ref.getInt("http.max-connections")).isEqualTo(64);
        assertThat(ref.getString("redis.url")).isEmpty();
        assertThat(ref.getBoolean("imei-luhn-check")).isTrue();
        assertThat(ref.getInt("limits.max-frame-bytes")).isEqualTo(16384);
        assertThat(ref.getInt("limits.max-queued-frames")).isEqualTo(32);
        assertThat(ref.getDuration("timeouts.login")).isEqualTo(Duration.ofSeconds(30));
        assertThat(ref.getDuration("timeouts.read-idle")).isEqualTo(Duration.ofMinutes(10));
        assertThat(ref.getString("admission.udp")).isEqualTo("tcp-known");
        assertThat(ref.getInt("limits.max-udp-records-per-second")).isEqualTo(20_000);
        assertThat(ref.getInt("limits.max-accepts-per-network-per-second")).isEqualTo(200);
        // Queue health: the design's levels (stuck 10 / 50; dead letters 100 / 1,000 per 15 min).
        assertThat(ref.getDuration("ops.queue-health.stuck-after")).isEqualTo(Duration.ofMinutes(5));
        assertThat(ref.getDuration("ops.queue-health.in-flight-margin")).isEqualTo(Duration.ofSeconds(30));
        assertThat(ref.getLong("ops.queue-health.degraded-stuck")).isEqualTo(10);
        assertThat(ref.getLong("ops.queue-health.unhealthy-stuck")).isEqualTo(50);
        assertThat(ref.getDuration("ops.queue-health.dead-letter-window")).isEqualTo(Duration.ofMinutes(15));
        assertThat(ref.getLong("ops.queue-health.dead-letters-degraded-size")).isEqualTo(100);
        assertThat(ref.getLong("ops.queue-health.dead-letters-unhealthy-size")).isEqualTo(1000);
    }

    @Test
    void load_whenQueueHealthLevelsSet_thenTheyLandInTheHealthSection_andADegradedLevelAboveItsUnhealthyIsCapped() {
        var health = SettingsLoader.loadWithEnvironment(Map.of("QUEUE_DEGRADED_STUCK", "3",
                "QUEUE_UNHEALTHY_STUCK", "7", "QUEUE_DEAD_LETTER_WINDOW", "5m", "QUEUE_IN_FLIGHT_MARGIN", "0s",
                "QUEUE_DEAD_LETTERS_DEGRADED_SIZE", "20", "QUEUE_DEAD_LETTERS_UNHEALTHY_SIZE", "40"), Map.of())
                .queueHealth();

        assertThat(health.degradedStuck()).isEqualTo(3);
        assertThat(health.unhealthyStuck()).isEqualTo(7);
        assertThat(health.deadLetterWindow()).isEqualTo(Duration.ofMinutes(5));
        assertThat(health.inFlightMargin()).isZero();
        assertThat(health.deadLettersDegraded()).isEqualTo(20);
        assertThat(health.deadLettersUnhealthy()).isEqualTo(40);
        // An older deployment's lower unhealthy level still starts: the degraded level is capped at it.
        var older = SettingsLoader.loadWithEnvironment(Map.of("QUEUE_UNHEALTHY_STUCK", "5",
                "QUEUE_DEAD_LETTERS_UNHEALTHY_SIZE", "50"), Map.of()).queueHealth();
        assertThat(older.degradedStuck()).isEqualTo(5);
        assertThat(older.deadLettersDegraded()).isEqualTo(50);
    }

    @Test
    void load_whenNothingOverridden_thenCommandDeadLettersKeep10000For7Days_andFinishedCommands7Days() {
        ServerSettings s = SettingsLoader.loadWithEnvironment(Map.of(), Map.of());

        assertThat(s.commands().deadLetterMaxEntries()).isEqualTo(10_000);
        assertThat(s.ops().deadLetterTtl()).isEqualTo(Duration.ofDays(7));
        assertThat(s.commands().retention()).isEqualTo(Duration.ofDays(7));

        ServerSettings set = SettingsLoader.loadWithEnvironment(Map.of("DLQ_COMMANDS_MAX_ENTRIES", "25",
                "DLQ_TTL", "2h", "COMMAND_RETENTION", "90s"), Map.of());

        assertThat(set.commands().deadLetterMaxEntries()).isEqualTo(25);
        assertThat(set.ops().deadLetterTtl()).isEqualTo(Duration.ofHours(2));
        assertThat(set.commands().retention()).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void heartbeatDeleteMeans_isExpiryByDefault_andShutdownWhenTheVariableSaysSo() {
        assertThat(SettingsLoader.loadWithEnvironment(Map.of(), Map.of()).instance().heartbeatDeleteMeans())
                .isEqualTo(HeartbeatDeleteMeans.EXPIRY);
        assertThat(SettingsLoader.loadWithEnvironment(Map.of("HEARTBEAT_DELETE_MEANS", "Shutdown"), Map.of())
                .instance().heartbeatDeleteMeans()).isEqualTo(HeartbeatDeleteMeans.SHUTDOWN);
    }

    @Test
    void load_whenNothingOverridden_thenTheRolloutSwitchesAreDeadLettersOnHealthOnAndADryRunPurge() {
        Config ref = ConfigFactory.parseResources(SettingsLoader.class, "/reference.conf")
                .resolve().getConfig("teltonika.server");
        assertThat(ref.getBoolean("dead-letters.enabled")).isTrue();
        assertThat(ref.getBoolean("ops.queue-health.enabled")).isTrue();
        assertThat(ref.getString("ops.purge.mode")).isEqualTo("dry-run");

        ServerSettings s = SettingsLoader.loadWithEnvironment(Map.of(), Map.of());

        assertThat(s.ops().deadLettersEnabled()).isTrue();
        assertThat(s.queueHealth().enabled()).isTrue();
        assertThat(s.ops().purgeMode()).isEqualTo(PurgeMode.DRY_RUN);
    }

    @ParameterizedTest(name = "PURGE_MODE={0}")
    @CsvSource({"off, OFF", "dry-run, DRY_RUN", "LIVE, LIVE", "' Dry-Run ', DRY_RUN"})
    void load_whenPurgeModeAndSwitchesSet_thenTheOpsSettingsHoldThem(String mode, PurgeMode expected) {
        ServerSettings s = SettingsLoader.loadWithEnvironment(Map.of("PURGE_MODE", mode, "DLQ_ENABLED", "false",
                "QUEUE_HEALTH_ENABLED", "FALSE"), Map.of());

        assertThat(s.ops().purgeMode()).isEqualTo(expected);
        assertThat(s.ops().deadLettersEnabled()).isFalse();
        assertThat(s.queueHealth().enabled()).isFalse();
    }

    @Test
    void load_whenUdpAndNetworkSharesSet_thenTheyLandInTheHostileClientLimits() {
        ServerSettings s = SettingsLoader.load(Map.of("admission.udp", "ANY",
                "limits.max-udp-records-per-second", 0, "limits.max-accepts-per-network-per-second", 7));

        assertThat(s.devices().hostile().udpAdmission()).isEqualTo(org.fleetpipe.teltonika.server.admission.UdpAdmission.ANY);
        assertThat(s.devices().hostile().maxUdpRecordsPerSecond()).isZero();
        assertThat(s.devices().hostile().maxAcceptsPerNetworkPerSecond()).isEqualTo(7);
    }

    @Test
    void load_whenCaptureSettingsGiven_thenTheDeviceSettingsHoldThem_elseTheDefaults() {
        assertThat(SettingsLoader.load(Map.of()).devices().capture())
                .isEqualTo(org.fleetpipe.teltonika.server.capture.CaptureSettings.DEFAULTS);
        ServerSettings s = SettingsLoader.loadWithEnvironment(Map.of("CAPTURE_MAX_DURATION", "30m", "MAX_CAPTURES", "5",
                "CAPTURE_RETENTION", "2h", "CAPTURE_MAX_BYTES", "65536"), Map.of());

        assertThat(s.devices().capture()).isEqualTo(new org.fleetpipe.teltonika.server.capture.CaptureSettings(
                java.time.Duration.ofMinutes(30), 5, java.time.Duration.ofHours(2), 65536));
    }

    @Test
    void load_whenOverridden_thenOverridesWin() {
        Map<String, Object> overrides = new HashMap<>();
        overrides.put("bind-address", "127.0.0.1");
        overrides.put("tcp-port", 6001);
        overrides.put("udp-port", 0);
        overrides.put("http-port", "9090");
        overrides.put("redis.url", " redis://:secret@127.0.0.1:6380/2 ");
        overrides.put("redis.command-timeout", "750ms");
        overrides.put("redis.namespace", "fleet-a:");
        overrides.put("instance-id-prefix", "pod-7");
        overrides.put("imei-luhn-check", "false");
        overrides.put("limits.max-frame-bytes", 1280);
        overrides.put("limits.max-records-per-packet", 50);
        overrides.put("limits.max-queued-frames", 4);
        overrides.put("timeouts.login", "2s");
        overrides.put("timeouts.read-idle", "3m");
        overrides.put("telemetry.stream-max-len", 0);
        overrides.put("shutdown.grace", "1500 ms");

        ServerSettings s = SettingsLoader.load(overrides);

        assertThat(s.listeners().bindAddress()).isEqualTo("127.0.0.1");
        assertThat(s.listeners().tcpPort()).isEqualTo(6001);
        assertThat(s.listeners().udpPort()).as("0 turns UDP off").isZero();
        assertThat(s.http().port()).isEqualTo(9090);
        assertThat(s.redis().url()).contains("redis://:secret@127.0.0.1:6380/2");
        assertThat(s.redis().commandTimeout()).isEqualTo(Duration.ofMillis(750));
        assertThat(s.redis().namespace()).isEqualTo("fleet-a:");
        assertThat(s.instance().idPrefix()).isEqualTo("pod-7");
        assertThat(s.devices().imeiLuhnCheck()).isFalse();
        assertThat(s.devices().decodeLimits().maxFrameBytes()).isEqualTo(1280);
        assertThat(s.devices().decodeLimits().maxRecords()).isEqualTo(50);
        assertThat(s.devices().maxQueuedFrames()).isEqualTo(4);
        assertThat(s.devices().loginTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.devices().readIdleTimeout()).isEqualTo(Duration.ofMinutes(3));
        assertThat(s.telemetry().retention().maxLenWithoutGroups()).as("0 = no cap").isZero();
        assertThat(s.shutdown().grace()).isEqualTo(Duration.ofMillis(1500));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "redis.url | redis://127.0.0.1:6379",
            "redis.url | rediss://user:pw@redis.example:6380/0",
            "redis.url | redis-sentinel://h1:26379,h2:26379/0#mymaster"})
    void load_whenRedisUrlOfAContractScheme_thenAccepted(String key, String url) {
        assertThat(SettingsLoader.load(Map.of(key, url)).redis().url()).contains(url);
    }

    @Test
    void load_whenRedisClusterUrl_thenTheNamespaceMustHoldAHashTag() {
        String url = "redis-cluster://:pw@10.0.0.1:7000,10.0.0.2:7001";
        ServerSettings s = SettingsLoader.load(Map.of("redis.url", url, "redis.namespace", "{fleet}:"));
        assertThat(s.redis().cluster()).isTrue();
        assertThat(SettingsLoader.load(Map.of("redis.url", "redis://127.0.0.1:6379")).redis().cluster()).isFalse();
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("redis.url", url, "redis.namespace", "fleet:")))
                .isInstanceOf(SettingsException.class).hasMessageContaining("redis.namespace")
                .hasMessageContaining("hash tag");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("redis.url", url, "redis.namespace", "{}:")))
                .hasMessageContaining("hash tag");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("redis.url", "redis-cluster://10.0.0.1:7000/3",
                "redis.namespace", "{fleet}:"))).hasMessageContaining("not a valid Redis Cluster URL");
    }

    @Test
    void load_blockLinger_defaultsToZero_andTakesTheVariable() {
        assertThat(SettingsLoader.load(Map.of()).telemetry().blockLinger()).isZero();
        assertThat(SettingsLoader.loadWithEnvironment(Map.of("TELEMETRY_BLOCK_LINGER", "1ms"), Map.of()).telemetry()
                .blockLinger()).isEqualTo(Duration.ofMillis(1));
        assertThat(SettingsLoader.loadWithEnvironment(Map.of("TELEMETRY_BLOCK_LINGER", "2500us"), Map.of()).telemetry()
                .blockLinger()).isEqualTo(Duration.ofMillis(2).plusNanos(500_000));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "tcp-port | abc",
            "tcp-port | 70000",
            "tcp-port | -1",
            "udp-port | 65536",
            "http-port | eighty",
            "redis.url | http://x",
            "redis.url | localhost:6379",
            "redis.url | redis://127.0.0.1:notaport",
            "bind-address | not an address",
            "heartbeat.ttl | 0s",
            "heartbeat.interval | 60s",
            "janitor.interval | -1s",
            "janitor.jitter | 2",
            "janitor.scan-count | 0",
            "registry.max-known-instances | 1",
            "redis.command-timeout | -5s",
            "redis.command-timeout | 0s",
            "timeouts.login | -1s",
            "timeouts.login | soon",
            "timeouts.read-idle | -10m",
            "shutdown.grace | -3s",
            "imei-luhn-check | maybe",
            "limits.max-frame-bytes | 10",
            "limits.max-frame-bytes | 999999999",
            "limits.max-records-per-packet | 256",
            "limits.max-queued-frames | 0",
            "limits.max-accepts-per-second | 5",
            "limits.device-records-burst | 254",
            "limits.device-bytes-burst | 1000",
            "limits.device-records-per-second | -1",
            "telemetry.backpressure.fair-share-from | 1.5",
            "telemetry.backpressure.fair-share-from | 0.05",
            "telemetry.backpressure.max-held-bytes | -1",
            "limits.max-accepts-per-network-per-second | -1",
            "limits.max-udp-records-per-second | 100",
            "limits.max-udp-in-flight | -4",
            "telemetry.stream-max-len | -1",
            "telemetry.block-linger | 51ms",
            "telemetry.block-linger | -1ms",
            "dead-letters.max-entries | 0",
            "io-threads | -1",
            "admission.deny-sweep-interval | 0s",
            "registry.device-info-ttl | 500us",
            "capture.max-duration | 0s",
            "capture.max-captures | 0",
            "capture.retention | 0s",
            "capture.max-bytes | 100",
            "ops.queue-health.degraded-stuck | 0",
            "ops.queue-health.in-flight-margin | -1s",
            "ops.queue-health.dead-letter-window | 0s"})
    void load_whenValueBad_thenSettingsExceptionNamingTheKeyTheVariableAndTheValueInOneLine(String key, String value) {
        String variable = EnvNames.of(key).orElseThrow();
        String shown = key.equals("redis.url") ? "<hidden>" : value.contains(" ") ? '"' + value + '"' : value;

        assertThatThrownBy(() -> SettingsLoader.load(Map.of(key, value)))
                .isInstanceOf(SettingsException.class)
                .message()
                .startsWith("teltonika.server." + key + "=" + shown + " (env " + variable + "): ")
                .doesNotContain("\n");
    }

    // ---- as an operator types them: environment variables, through the real loader ----------

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "TCP_PORT | abc | TCP_PORT=abc (teltonika.server.tcp-port): must be a whole number in 0..65535",
            "TCP_PORT | 5027.5 | TCP_PORT=5027.5 (teltonika.server.tcp-port): must be a whole number in 0..65535",
            "UDP_PORT | 70000 | UDP_PORT=70000 (teltonika.server.udp-port): must be a whole number in 0..65535",
            "SHUTDOWN_GRACE | 10 | SHUTDOWN_GRACE=10 (teltonika.server.shutdown.grace): needs a unit, such as 10s or"
                    + " 10ms (a bare number is milliseconds only for variables ending in _MS)",
            "DEDUP_WINDOW | 3600000 | DEDUP_WINDOW=3600000 (teltonika.server.telemetry.dedup-window): needs a unit,"
                    + " such as 3600000s or 3600000ms (a bare number is milliseconds only for variables ending in _MS)",
            "LOGIN_TIMEOUT | soon | LOGIN_TIMEOUT=soon (teltonika.server.timeouts.login): must be a duration, such as"
                    + " 10s, 500ms or 5m",
            "REDIS_COMMAND_TIMEOUT | 0s | REDIS_COMMAND_TIMEOUT=0s (teltonika.server.redis.command-timeout): must be at"
                    + " least 1 ms",
            "DRAIN_WINDOW | -1s | DRAIN_WINDOW=-1s (teltonika.server.shutdown.drain-window): must not be negative",
            "CLOCK_SKEW_FUTURE | -1m | CLOCK_SKEW_FUTURE=-1m (teltonika.server.telemetry.clock-skew-future): must not"
                    + " be negative",
            "CLOCK_SKEW_FUTURE | 31d | CLOCK_SKEW_FUTURE=31d (teltonika.server.telemetry.clock-skew-future): must be"
                    + " at most 30d",
            "CLOCK_SKEW_FUTURE | 600 | CLOCK_SKEW_FUTURE=600 (teltonika.server.telemetry.clock-skew-future): needs a"
                    + " unit, such as 600s or 600ms (a bare number is milliseconds only for variables ending in _MS)",
            "LOG_FORMAT | xml | LOG_FORMAT=xml (teltonika.server.log.format): must be text or json (any case)",
            "LOG_LEVEL | loud | LOG_LEVEL=loud (teltonika.server.log.level): must be one of trace, debug, info, warn,"
                    + " error, off (any case)",
            "IMEI_LUHN_CHECK | maybe | IMEI_LUHN_CHECK=maybe (teltonika.server.imei-luhn-check): must be true or false",
            "JANITOR_JITTER | 1.5 | JANITOR_JITTER=1.5 (teltonika.server.janitor.jitter): must be a number in 0..1",
            "PURGE_MODE | true | PURGE_MODE=true (teltonika.server.ops.purge.mode): must be one of off, dry-run, live"
                    + " (any case)",
            "PURGE_MODE | dry_run | PURGE_MODE=dry_run (teltonika.server.ops.purge.mode): must be one of off,"
                    + " dry-run, live (any case)",
            "DLQ_ENABLED | disabled | DLQ_ENABLED=disabled (teltonika.server.dead-letters.enabled): must be true or"
                    + " false",
            "QUEUE_HEALTH_ENABLED | 0 | QUEUE_HEALTH_ENABLED=0 (teltonika.server.ops.queue-health.enabled): must be"
                    + " true or false",
            "DEVICE_ADMISSION | closed | DEVICE_ADMISSION=closed (teltonika.server.admission.mode): must be open or"
                    + " allow-list (any case)",
            "UDP_ADMISSION | known | UDP_ADMISSION=known (teltonika.server.admission.udp): must be one of"
                    + " tcp-known, tcp-network, any (any case)",
            "MAX_UDP_RECORDS_PER_SECOND | 200 | MAX_UDP_RECORDS_PER_SECOND=200"
                    + " (teltonika.server.limits.max-udp-records-per-second): must be 0 (no cap) or at least"
                    + " teltonika.server.limits.max-records-per-packet=255 (env MAX_RECORDS_PER_PACKET)",
            "BIND_ADDRESS | my host | BIND_ADDRESS=\"my host\" (teltonika.server.bind-address): not an IP address",
            "HEARTBEAT_DELETE_MEANS | stop | HEARTBEAT_DELETE_MEANS=stop (teltonika.server.heartbeat.delete-means):"
                    + " must be expiry or shutdown (any case)",
            "REDIS_URL | http://user:secret@redis:6379 | REDIS_URL=<hidden> (teltonika.server.redis.url): must start"
                    + " with redis://, rediss://, redis-sentinel:// or redis-cluster://",
            "TLS_PORT | 6000 | TLS_PORT=6000 (teltonika.server.tls.port): needs TLS_CERT_FILE"
                    + " (teltonika.server.tls.cert-file) and TLS_KEY_FILE (teltonika.server.tls.key-file)",
            "TLS_CLIENT_AUTH | maybe | TLS_CLIENT_AUTH=maybe (teltonika.server.tls.client-auth): must be one of none,"
                    + " optional, require (any case)",
            "TLS_CLIENT_AUTH | require | TLS_CLIENT_AUTH=require (teltonika.server.tls.client-auth): needs"
                    + " TLS_CLIENT_CA_FILE (teltonika.server.tls.client-ca-file), the PEM certificates the devices'"
                    + " certificates chain to"})
    void load_whenEnvironmentVariableBad_thenOneLineNamesTheVariableTheValueAndTheKey(String variable, String value,
            String expected) {
        assertThatThrownBy(() -> SettingsLoader.loadWithEnvironment(Map.of(variable, value), Map.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessage(expected);
    }

    @Test
    void load_whenTlsClientAuthWithoutTheTlsPort_thenRefused_elseTheModeAndTheTrustAnchors() {
        assertThatThrownBy(() -> SettingsLoader.loadWithEnvironment(Map.of("TLS_CLIENT_AUTH", "optional",
                "TLS_CLIENT_CA_FILE", "/ca.pem"), Map.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessage("TLS_CLIENT_AUTH=optional (teltonika.server.tls.client-auth): needs TLS_PORT"
                        + " (teltonika.server.tls.port): client certificates are asked for on the TLS port only");
        TlsSettings tls = SettingsLoader.loadWithEnvironment(Map.of("TLS_CLIENT_AUTH", "Require",
                "TLS_CLIENT_CA_FILE", "/ca.pem", "TLS_PORT", "6000", "TLS_CERT_FILE", "/c.pem", "TLS_KEY_FILE",
                "/k.pem"), Map.of()).listeners().tls();
        assertThat(tls.clientAuth()).isEqualTo(TlsClientAuth.REQUIRE);
        assertThat(tls.clientCaFile()).isEqualTo("/ca.pem");
        assertThat(SettingsLoader.loadWithEnvironment(Map.of(), Map.of()).listeners().tls().clientAuth()).as("the default")
                .isEqualTo(TlsClientAuth.NONE);
    }

    @Test
    void load_whenApiTokenShorterThan32Characters_thenRefusedNamingApiTokenWithoutItsValue() {
        String shortToken = "s3cret-but-only-31-characters-x";

        assertThatThrownBy(() -> SettingsLoader.loadWithEnvironment(Map.of("API_TOKEN", shortToken), Map.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessage("API_TOKEN=<hidden> (teltonika.server.api-token): must be at least 32 characters"
                        + " (openssl rand -hex 32 makes one), or unset for a generated one")
                .message().doesNotContain(shortToken);
        assertThat(SettingsLoader.loadWithEnvironment(Map.of("API_TOKEN", shortToken + "y"), Map.of()).http().apiToken())
                .contains(shortToken + "y");
        assertThat(SettingsLoader.loadWithEnvironment(Map.of("API_TOKEN", " "), Map.of()).http().apiToken())
                .as("blank: a generated one").isEmpty();
    }

    @Test
    void load_whenHttpBindAddressUnset_thenTheDeviceBindAddress_elseItsOwn() {
        assertThat(SettingsLoader.loadWithEnvironment(Map.of("BIND_ADDRESS", "127.0.0.2"), Map.of()).http()
                .bindAddress()).isEqualTo("127.0.0.2");
        ServerSettings both = SettingsLoader.loadWithEnvironment(
                Map.of("BIND_ADDRESS", "0.0.0.0", "HTTP_BIND_ADDRESS", "127.0.0.1", "HTTP_MAX_CONNECTIONS", "5"),
                Map.of());
        assertThat(both.listeners().bindAddress()).isEqualTo("0.0.0.0");
        assertThat(both.http()).isEqualTo(new HttpSettings(8080, "127.0.0.1", 5, 16, Duration.ofSeconds(10), 8081, 16,
                4, Optional.empty(), Optional.empty(), 16L * 1024 * 1024));
        assertThatThrownBy(() -> SettingsLoader.loadWithEnvironment(Map.of("HTTP_BIND_ADDRESS", "intranet"), Map.of()))
                .hasMessage("HTTP_BIND_ADDRESS=intranet (teltonika.server.http.bind-address): not an IP address");
    }

    @Test
    void load_whenHealthPortAndHttpLimitsSet_thenTheHttpSettingsHoldThem() {
        HttpSettings http = SettingsLoader.loadWithEnvironment(Map.of("HEALTH_PORT", "9091",
                "HTTP_MAX_CONNECTIONS_PER_ADDRESS", "4", "HTTP_REQUEST_TIMEOUT", "3s", "HEALTH_MAX_CONNECTIONS", "2",
                "HEALTH_MAX_CONNECTIONS_PER_ADDRESS", "1", "HTTP_ANSWER_BYTES_MAX", "2097152",
                "API_TOKEN", "o".repeat(32), "API_TOKEN_READ", "r".repeat(32)), Map.of()).http();

        assertThat(http).isEqualTo(new HttpSettings(8080, http.bindAddress(), 64, 4, Duration.ofSeconds(3), 9091, 2, 1,
                Optional.of("o".repeat(32)), Optional.of("r".repeat(32)), 2097152L));
        assertThat(SettingsLoader.load(Map.of()).withPorts(0, 0, 0, 0).http().healthPort()).as("tests bind to 0")
                .isZero();
    }

    @Test
    void load_whenHealthPortIsTheHttpPort_thenRefusedNamingBoth() {
        assertThatThrownBy(() -> SettingsLoader.loadWithEnvironment(Map.of("HEALTH_PORT", "8080"), Map.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessage("HEALTH_PORT=8080 (teltonika.server.health-port): must differ from"
                        + " teltonika.server.http-port=8080 (env HTTP_PORT): the probes get a listener of their own");
        assertThat(SettingsLoader.loadWithEnvironment(Map.of("HEALTH_PORT", "0", "HTTP_PORT", "0"), Map.of()).http()
                .healthPort()).as("both free ports").isZero();
    }

    @Test
    void load_whenReadTokenShortOrTheOperatorToken_thenRefusedWithoutItsValue() {
        String operator = "operator-token-0123456789abcdef0123";
        assertThatThrownBy(() -> SettingsLoader.loadWithEnvironment(Map.of("API_TOKEN_READ", "short-read-token"),
                Map.of())).isInstanceOf(SettingsException.class)
                .hasMessage("API_TOKEN_READ=<hidden> (teltonika.server.api-token-read): must be at least 32 characters"
                        + " (openssl rand -hex 32 makes one), or unset for none");
        assertThatThrownBy(() -> SettingsLoader.loadWithEnvironment(Map.of("API_TOKEN", operator,
                "API_TOKEN_READ", operator), Map.of())).isInstanceOf(SettingsException.class)
                .hasMessage("API_TOKEN_READ=<hidden> (teltonika.server.api-token-read): must differ from the operator"
                        + " token (API_TOKEN)")
                .message().doesNotContain(operator);
        assertThat(SettingsLoader.loadWithEnvironment(Map.of(), Map.of()).http().readToken()).isEmpty();
    }

    @Test
    void load_whenTelemetryCapsInconsistent_thenOneLineNamesTheVariable() {
        assertThatThrownBy(() -> SettingsLoader.loadWithEnvironment(Map.of("TELEMETRY_MAX_UNREAD", "50"), Map.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("TELEMETRY_MAX_UNREAD=50").hasMessageContaining("0 (no cap) or at least 100");
        assertThatThrownBy(() -> SettingsLoader.loadWithEnvironment(
                Map.of("TELEMETRY_RETENTION_INTERVAL", "5s", "TELEMETRY_MAX_HOLD", "8s"), Map.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("TELEMETRY_MAX_HOLD=8s").hasMessageContaining("at least twice")
                .hasMessageContaining("TELEMETRY_RETENTION_INTERVAL=5s");
        assertThatThrownBy(() -> SettingsLoader.loadWithEnvironment(
                Map.of("TELEMETRY_LAG_DEGRADED_AGE", "10m", "TELEMETRY_LAG_UNHEALTHY_AGE", "5m"), Map.of()))
                .isInstanceOf(SettingsException.class).hasMessageContaining("TELEMETRY_LAG_UNHEALTHY_AGE=5m");
        assertThat(SettingsLoader.loadWithEnvironment(Map.of("TELEMETRY_MAX_UNREAD", "0", "TELEMETRY_RETENTION",
                "Delivered"), Map.of()).telemetry().retention()).extracting(r -> r.maxUnread(), r -> r.mode())
                .containsExactly(0L, org.fleetpipe.teltonika.server.stream.RetentionMode.DELIVERED);
    }

    @Test
    void load_whenHeartbeatIntervalOverHalfTheTtl_thenNamesBothVariables() {
        assertThatThrownBy(() -> SettingsLoader.loadWithEnvironment(
                Map.of("HEARTBEAT_TTL_MS", "10000", "HEARTBEAT_INTERVAL_MS", "6000"), Map.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessage("HEARTBEAT_INTERVAL_MS=6000 (teltonika.server.heartbeat.interval): 6000 ms must be at most"
                        + " half of HEARTBEAT_TTL_MS=10000 (teltonika.server.heartbeat.ttl), 10000 ms");
    }

    @Test
    void load_whenDurationVariablesGiven_thenBareNumbersOnlyForMsVariablesAndZeroAnywhere() {
        ServerSettings s = SettingsLoader.loadWithEnvironment(Map.of(
                "HEARTBEAT_TTL_MS", "20000", "HEARTBEAT_INTERVAL_MS", "5s", "JANITOR_INTERVAL_MS", "1500",
                "SHUTDOWN_GRACE", "2500ms", "DEDUP_WINDOW", "0", "DRAIN_WINDOW", "0", "DEVICE_INFO_TTL", "2d",
                "CLOCK_SKEW_FUTURE", "90s"), Map.of());

        assertThat(s.instance().heartbeatTtl()).isEqualTo(Duration.ofSeconds(20));
        assertThat(s.instance().heartbeatInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.janitor().interval()).isEqualTo(Duration.ofMillis(1500));
        assertThat(s.shutdown().grace()).isEqualTo(Duration.ofMillis(2500));
        assertThat(s.telemetry().dedupWindow()).as("0 = off, in any unit").isZero();
        assertThat(s.shutdown().drainWindow()).isZero();
        assertThat(s.devices().deviceInfoTtl()).isEqualTo(Duration.ofDays(2));
        assertThat(s.telemetry().clockSkewFuture()).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void load_whenLogFormatAndLevelInAnyCase_thenAccepted() {
        assertThat(SettingsLoader.loadWithEnvironment(Map.of("LOG_FORMAT", "JSON", "LOG_LEVEL", "Debug"), Map.of()))
                .isNotNull();
        assertThat(SettingsLoader.loadWithEnvironment(Map.of("LOG_FORMAT", " Text "), Map.of())).isNotNull();
    }

    @Test
    void load_whenBooleanVariableInUpperCase_thenAccepted() {
        assertThat(SettingsLoader.loadWithEnvironment(Map.of("IMEI_LUHN_CHECK", "FALSE"), Map.of()).devices().imeiLuhnCheck())
                .isFalse();
    }

    @Test
    void load_whenEverySettingsVariableHoldsGarbage_thenEachIsAcceptedAsTextOrRefusedNamingItself() {
        String garbage = "x%1";
        for (Map.Entry<String, String> e : EnvNames.all().entrySet()) {
            String key = e.getKey();
            String variable = e.getValue();
            try {
                SettingsLoader.loadWithEnvironment(Map.of(variable, garbage), Map.of());
            } catch (SettingsException refused) {
                String shown = key.equals("redis.url") || key.startsWith("api-token") ? "<hidden>" : garbage;
                assertThat(refused.getMessage()).as(variable)
                        .startsWith(variable + "=" + shown + " (teltonika.server." + key + "): ")
                        .doesNotContain("\n");
            }
        }
    }

    @Test
    void logFormatAndLevel_whenSetInAnyCase_thenLogbackGetsTheNamesItKnows() {
        try {
            System.setProperty("teltonika.server.log.format", "JSON");
            System.setProperty("teltonika.server.log.level", "warn");
            assertThat(SettingsLoader.logFormat()).isEqualTo("json");
            assertThat(SettingsLoader.logLevel()).isEqualTo("WARN");

            System.setProperty("teltonika.server.log.format", "xml");
            System.setProperty("teltonika.server.log.level", "loud");
            assertThat(SettingsLoader.logFormat()).as("falls back; load() refuses it").isEqualTo("text");
            assertThat(SettingsLoader.logLevel()).isEqualTo("INFO");
        } finally {
            System.clearProperty("teltonika.server.log.format");
            System.clearProperty("teltonika.server.log.level");
        }
    }

    @Test
    void envOverrides_whenContractVariablesSet_thenEachLandsOnItsSetting() {
        Map<String, String> environment = new HashMap<>();
        CONTRACT_ENV.keySet().forEach(variable -> environment.put(variable, "value-of-" + variable));

        Config resolved = ConfigFactory.parseResources(SettingsLoader.class, "/env-overrides.conf")
                .resolveWith(ConfigFactory.parseMap(environment), ConfigResolveOptions.noSystem())
                .getConfig("teltonika.server");

        CONTRACT_ENV.forEach((variable, key) ->
                assertThat(resolved.getString(key)).as("%s -> %s", variable, key).isEqualTo("value-of-" + variable));
    }

    @Test
    void envOverrides_whenNoVariableSet_thenOverrideNothing() {
        Config resolved = ConfigFactory.parseResources(SettingsLoader.class, "/env-overrides.conf")
                .resolveWith(ConfigFactory.empty(), ConfigResolveOptions.noSystem());

        assertThat(resolved.entrySet()).as("every substitution is optional").isEmpty();
    }

    @Test
    void maxConnections_autoFitsTheHeap_andANumberOverTheBudgetIsRefusedNamingWhatFits() {
        long heap512 = 512L * 1024 * 1024;
        assertThat(ConnectionBudget.auto(heap512)).as("a 1 GiB pod's heap").isEqualTo(32_768);
        assertThat(ConnectionBudget.auto(8L * 1024 * 1024 * 1024)).as("never past the old cap").isEqualTo(50_000);
        assertThat(ConnectionBudget.auto(256L * 1024 * 1024)).isEqualTo(16_384);
        Config auto = ConfigFactory.parseMap(Map.of("limits.max-connections", "AUTO"));
        assertThat(DeviceSettings.maxConnections(auto, heap512)).isEqualTo(32_768);
        Config fits = ConfigFactory.parseMap(Map.of("limits.max-connections", 32_768));
        assertThat(DeviceSettings.maxConnections(fits, heap512)).isEqualTo(32_768);
        Config tooMany = ConfigFactory.parseMap(Map.of("limits.max-connections", 50_000));
        assertThatThrownBy(() -> DeviceSettings.maxConnections(tooMany, heap512))
                .isInstanceOf(SettingsException.class).hasMessageContaining("MAX_CONNECTIONS")
                .hasMessageContaining("781 MiB").hasMessageContaining("512 MiB").hasMessageContaining("at most 32768");
    }

    @Test
    void aRetiredSetting_stillSet_refusesTheStart_namingWhatReplacedIt() {
        assertThatThrownBy(() -> SettingsLoader.loadWithEnvironment(Map.of("TELEMETRY_DEVICE_SHARE", "0.01"), Map.of()))
                .isInstanceOf(SettingsException.class).hasMessageContaining("TELEMETRY_DEVICE_SHARE")
                .hasMessageContaining("no longer a setting").hasMessageContaining("TELEMETRY_FAIR_SHARE_FROM");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("telemetry.backpressure.device-share", 0.01)))
                .isInstanceOf(SettingsException.class).hasMessageContaining("telemetry.backpressure.device-share");
    }
}
