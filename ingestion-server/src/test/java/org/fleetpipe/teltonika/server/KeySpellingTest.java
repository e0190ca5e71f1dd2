package org.fleetpipe.teltonika.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.fleetpipe.teltonika.payload.TelemetryKeys;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.admission.AdmissionKeys;
import org.fleetpipe.teltonika.server.capture.CaptureKeys;
import org.fleetpipe.teltonika.server.command.CommandKeys;
import org.fleetpipe.teltonika.server.ingest.IngestKeys;
import org.fleetpipe.teltonika.server.ingest.RedisFrameDeadLetters;
import org.junit.jupiter.api.Test;

/**
 * Every area's keys, spelled as deployed Redis instances hold them (OPERATIONS.md, "Redis keys
 * written"): the key classes may move, the names may not. Each area keeps its own, small.
 */
class KeySpellingTest {

    private static final String IMEI = "490154203237518";
    private final RedisKeys keys = new RedisKeys("{fleet}:");

    @Test
    void theCommandsKeys() {
        CommandKeys commands = new CommandKeys(keys);
        assertThat(commands.command("c-1")).isEqualTo("{fleet}:command:c-1");
        assertThat(commands.commandPrefix()).isEqualTo("{fleet}:command:");
        assertThat(commands.commandQueue(IMEI)).isEqualTo("{fleet}:commands:queue:" + IMEI);
        assertThat(commands.commandQueuePrefix()).isEqualTo("{fleet}:commands:queue:");
        assertThat(commands.deviceCommands(IMEI)).isEqualTo("{fleet}:commands:device:" + IMEI);
        assertThat(commands.commandsQueued()).isEqualTo("{fleet}:commands:queued");
        assertThat(commands.commandsInFlight("ingest-1")).isEqualTo("{fleet}:commands:inflight:ingest-1");
        assertThat(commands.commandsInFlightInstances()).isEqualTo("{fleet}:commands:inflight-instances");
        assertThat(commands.commandDeadLetters()).isEqualTo("{fleet}:dlq:commands");
        assertThat(commands.deviceMessages()).isEqualTo("{fleet}:device:messages");
    }

    @Test
    void theCapturesKeys() {
        CaptureKeys captures = new CaptureKeys(keys);
        assertThat(captures.captureActive(IMEI)).isEqualTo("{fleet}:capture:active:" + IMEI);
        assertThat(captures.capture(IMEI)).isEqualTo("{fleet}:capture:" + IMEI);
        assertThat(captures.capturesActive()).isEqualTo("{fleet}:captures:active");
    }

    @Test
    void theAdmissionListsAndTheModels() {
        assertThat(new AdmissionKeys(keys).allowedDevices()).isEqualTo("{fleet}:devices:allowed");
        assertThat(new AdmissionKeys(keys).deniedDevices()).isEqualTo("{fleet}:devices:denied");
        assertThat(new TelemetryKeys(keys.namespace()).deviceModels()).isEqualTo("{fleet}:devices:models");
    }

    @Test
    void theTelemetrysKeys() {
        assertThat(RedisFrameDeadLetters.key(keys)).isEqualTo("{fleet}:dlq:frames");
        IngestKeys one = new IngestKeys(keys);
        assertThat(one.telemetry()).isEqualTo("{fleet}:telemetry");
        assertThat(one.telemetryLayout()).isEqualTo("{fleet}:telemetry:partitions");
        assertThat(one.dedupRecent(IMEI)).isEqualTo("{fleet}:dedup:recent:" + IMEI);
        assertThat(one.dedupPrevious(IMEI)).isEqualTo("{fleet}:dedup:previous:" + IMEI);
        IngestKeys sixteen = new IngestKeys(keys, 16);
        assertThat(sixteen.telemetryOf(IMEI)).isEqualTo("fleet:telemetry:{0}");
        assertThat(sixteen.telemetryLayout()).isEqualTo("{fleet}:telemetry:partitions");
        assertThat(sixteen.partitionedKeysOwner()).isEqualTo("fleet:telemetry:namespace");
        assertThat(sixteen.dedupRecent(IMEI)).isEqualTo("fleet:dedup:recent:{0}:" + IMEI);
        assertThat(sixteen.dedupPrevious(IMEI)).isEqualTo("fleet:dedup:previous:{0}:" + IMEI);
    }

    @Test
    void everyKeyClass_isAtMost100Lines() throws IOException {
        List<Path> keyClasses = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of(".."))) {
            files.filter(f -> f.toString().contains("src" + File.separator + "main")
                    && f.getFileName().toString().endsWith("Keys.java")).forEach(keyClasses::add);
        }
        assertThat(keyClasses).as("the key classes found").hasSizeGreaterThanOrEqualTo(7);
        for (Path file : keyClasses) {
            assertThat(Files.readAllLines(file)).as(file.toString()).hasSizeLessThanOrEqualTo(100);
        }
    }

    @Test
    void theStreamContract_isSpelledOnce_inPayload() throws IOException {
        for (String spelling : List.of("\"devices:models\"", "\"priority\"", "new CRC32()")) {
            List<String> spelledIn = new ArrayList<>();
            try (Stream<Path> files = Files.walk(Path.of(".."))) {
                for (Path file : files.filter(f -> f.toString().contains("src" + File.separator + "main")
                        && f.toString().endsWith(".java")).toList()) {
                    if (Files.readString(file).contains(spelling)) {
                        spelledIn.add(file.getFileName().toString());
                    }
                }
            }
            assertThat(spelledIn).as(spelling).hasSize(1).allMatch(name -> name.equals("TelemetryKeys.java")
                    || name.equals("EntryField.java") || name.equals("TelemetryLayout.java"));
        }
    }
}
