package org.fleetpipe.teltonika.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.Map;
import org.fleetpipe.teltonika.server.ops.PurgeMode;
import org.junit.jupiter.api.Test;

/**
 * Each settings section reads its own keys: given only them, its {@code from(Config)} makes what
 * the loader makes of the whole configuration, and a key it lacks is named when missing.
 */
class SettingsSectionsTest {

    private static final Config REFERENCE = ConfigFactory.parseResources(SettingsLoader.class, "/reference.conf")
            .resolve().getConfig(SettingValues.ROOT);
    private static final ServerSettings ALL = SettingsLoader.from(REFERENCE);

    /** The reference configuration cut down to {@code paths}. */
    private static Config only(String... paths) {
        Config kept = ConfigFactory.empty();
        for (String path : paths) {
            kept = kept.withFallback(REFERENCE.withOnlyPath(path));
        }
        return kept;
    }

    @Test
    void everySection_fromItsOwnKeysAlone_isWhatTheLoaderMakes() {
        assertThat(ListenerSettings.from(only("bind-address", "tcp-port", "udp-port", "tls", "io-threads")))
                .isEqualTo(ALL.listeners());
        assertThat(CommandsSection.from(only("commands"))).isEqualTo(ALL.commands());
        assertThat(QueueHealthSection.from(only("ops.queue-health"))).isEqualTo(ALL.queueHealth());
        assertThat(OpsSection.from(only("ops.purge", "dead-letters"))).isEqualTo(ALL.ops());
        assertThat(JanitorSection.from(only("janitor"))).isEqualTo(ALL.janitor());
        assertThat(ShutdownSettings.from(only("shutdown"))).isEqualTo(ALL.shutdown());
        assertThat(HttpSettings.from(only("http-port", "health-port", "api-token", "api-token-read", "http",
                "bind-address"))).isEqualTo(ALL.http());
    }

    @Test
    void healthAndOps_splitTheOldOpsSection_eachWithItsOwnValues() {
        Config set = ConfigFactory.parseMap(Map.of("ops.queue-health.interval", "3s", "ops.queue-health.enabled",
                false, "ops.purge.mode", "live", "dead-letters.ttl", "2h")).withFallback(REFERENCE);

        assertThat(QueueHealthSection.from(set).interval()).isEqualTo(Duration.ofSeconds(3));
        assertThat(QueueHealthSection.from(set).enabled()).isFalse();
        assertThat(OpsSection.from(set).purgeMode()).isEqualTo(PurgeMode.LIVE);
        assertThat(OpsSection.from(set).deadLetterTtl()).isEqualTo(Duration.ofHours(2));
        assertThat(OpsSection.from(set).deadLettersEnabled()).isTrue();
    }

    @Test
    void aSectionMissingOneOfItsKeys_namesItsVariable() {
        Config withoutWindow = only("ops.queue-health").withoutPath("ops.queue-health.dead-letter-window");

        assertThatThrownBy(() -> QueueHealthSection.from(withoutWindow)).isInstanceOf(SettingsException.class)
                .hasMessage("QUEUE_DEAD_LETTER_WINDOW (teltonika.server.ops.queue-health.dead-letter-window): is missing");
    }

    @Test
    void httpBindAddress_unset_isTheDevicesBindAddress() {
        Config http = only("http-port", "health-port", "api-token", "api-token-read", "http", "bind-address");

        assertThat(HttpSettings.from(ConfigFactory.parseMap(Map.of("bind-address", "127.0.0.2")).withFallback(http))
                .bindAddress()).isEqualTo("127.0.0.2");
        assertThat(HttpSettings.from(ConfigFactory.parseMap(Map.of("bind-address", "127.0.0.2",
                "http.bind-address", "127.0.0.3")).withFallback(http)).bindAddress()).isEqualTo("127.0.0.3");
    }
}
