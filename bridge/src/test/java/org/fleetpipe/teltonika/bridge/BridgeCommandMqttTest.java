package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.bridge.sink.Sink;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --sink mqtt}: what is checked at start, and the defaults. */
class BridgeCommandMqttTest {

    private static BridgeSettings settings(Map<String, String> environment, String... extra) {
        List<String> args = new ArrayList<>(List.of("--sink", "mqtt", "--redis-url", "redis://127.0.0.1:6379",
                "--consumer", "pod-1", "--mqtt-url", "tcp://broker:1883"));
        args.addAll(List.of(extra));
        BridgeCommand command = new BridgeCommand();
        new CommandLine(command).setOverwrittenOptionsAllowed(true).parseArgs(args.toArray(String[]::new));
        return command.settings(environment);
    }

    @Test
    void defaults_topicPerDevice_thousandInFlight_tenSecondTimeout_passwordOnlyFromTheEnvironment() {
        BridgeSettings settings = settings(Map.of("MQTT_PASSWORD", "s3cret"), "--mqtt-username", "bridge");

        assertThat(settings.group()).isEqualTo("mqtt");
        BridgeSettings.Mqtt mqtt = settings.mqtt();
        assertThat(mqtt.serverUri()).isEqualTo("tcp://broker:1883");
        assertThat(mqtt.topicTemplate()).isEqualTo("teltonika/{imei}/records");
        assertThat(mqtt.maxInFlight()).isEqualTo(1000);
        assertThat(mqtt.maxPayload()).isEqualTo(131_072);
        assertThat(mqtt.timeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(mqtt.username()).isEqualTo("bridge");
        assertThat(mqtt.password()).containsExactly("s3cret".toCharArray());
        assertThat(settings(Map.of()).mqtt().password()).isNull();
        assertThat(mqtt.version()).isEqualTo(3);
    }

    @Test
    void theProtocolIs311OrFive_fromTheOptionOrTheEnvironment() {
        assertThat(settings(Map.of(), "--mqtt-version", "5").mqtt().version()).isEqualTo(5);
        assertThat(settings(Map.of(), "--mqtt-version", "3.1.1").mqtt().version()).isEqualTo(3);
        assertThatThrownBy(() -> settings(Map.of(), "--mqtt-version", "4"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--mqtt-version must be 3.1.1 or 5, got '4'");
    }

    @Test
    void aTopicTemplateWithoutImeiIsRefusedAtStart() {
        assertThatThrownBy(() -> settings(Map.of(), "--topic", "teltonika/records"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--topic for mqtt must contain {imei}, got 'teltonika/records'");
    }

    @Test
    void aTopicTemplateWithWildcardsIsRefusedAtStart() {
        assertThatThrownBy(() -> settings(Map.of(), "--topic", "teltonika/+/{imei}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wildcards");
        assertThatThrownBy(() -> settings(Map.of(), "--topic", "teltonika/{imei}/#"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wildcards");
    }

    @Test
    void badUrlsInFlightAndTimeoutsAreRefusedAtStart() {
        assertThatThrownBy(() -> settings(Map.of(), "--mqtt-url", "http://broker:1883"))
                .hasMessageContaining("--mqtt-url must be tcp://host:port or ssl://host:port");
        assertThatThrownBy(() -> settings(Map.of(), "--mqtt-max-in-flight", "0"))
                .hasMessageContaining("--mqtt-max-in-flight must be 1..65535");
        assertThatThrownBy(() -> settings(Map.of(), "--mqtt-max-payload", "100"))
                .hasMessageContaining("--mqtt-max-payload must be 1024..268435455");
        assertThatThrownBy(() -> settings(Map.of(), "--mqtt-timeout", "100ms"))
                .hasMessageContaining("--mqtt-timeout must be 1s..10m");
        assertThat(settings(Map.of(), "--mqtt-url", "ssl://broker:8883", "--topic", "fleet/{imei}").mqtt())
                .extracting(BridgeSettings.Mqtt::serverUri, BridgeSettings.Mqtt::topicTemplate)
                .containsExactly("ssl://broker:8883", "fleet/{imei}");
    }

    @Test
    void theMqttSinkIsBuiltWithoutConnecting() {
        try (Sink sink = BridgeMain.sink(settings(Map.of()))) {
            assertThat(sink.name()).isEqualTo("mqtt");
        }
    }
}
