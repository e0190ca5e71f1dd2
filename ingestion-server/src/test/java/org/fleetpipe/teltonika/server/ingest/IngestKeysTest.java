package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.fleetpipe.teltonika.payload.TelemetryLayout;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.junit.jupiter.api.Test;

class IngestKeysTest {

    @Test
    void onePartitionKeepsTheNamesOfTheContract() {
        IngestKeys keys = new IngestKeys(new RedisKeys("fleet:"));
        assertThat(keys.partitions()).isOne();
        assertThat(keys.telemetry()).isEqualTo("fleet:telemetry");
        assertThat(keys.telemetryOf("356307042441013")).isEqualTo("fleet:telemetry");
        assertThat(keys.telemetryStreams()).containsExactly("fleet:telemetry");
        assertThat(keys.dedupRecent("356307042441013")).isEqualTo("fleet:dedup:recent:356307042441013");
        assertThat(keys.dedupPrevious("356307042441013")).isEqualTo("fleet:dedup:previous:356307042441013");
        assertThat(keys.telemetryLayout()).isEqualTo("fleet:telemetry:partitions");
        assertThat(keys.deviceInfo("356307042441013")).isEqualTo("fleet:device:info:356307042441013");
    }

    @Test
    void aDevicesTelemetryKeysCarryItsPartitionAsAHashTag() {
        IngestKeys keys = new IngestKeys(new RedisKeys(""), 16);
        // CRC-32 ("356307042441013") = 2372110574, the value zlib.crc32 gives in Python: 14 of 16.
        assertThat(keys.partitionOf("356307042441013")).isEqualTo(14);
        assertThat(keys.partitionOf("490154203237518")).isZero();
        assertThat(keys.telemetryOf("356307042441013")).isEqualTo("telemetry:{14}");
        assertThat(keys.dedupRecent("356307042441013")).isEqualTo("dedup:recent:{14}:356307042441013");
        assertThat(keys.dedupPrevious("356307042441013")).isEqualTo("dedup:previous:{14}:356307042441013");
        assertThat(keys.telemetryStreams()).hasSize(16).startsWith("telemetry:{0}", "telemetry:{1}")
                .endsWith("telemetry:{15}");
        assertThat(new IngestKeys(new RedisKeys(""), 4).partitionOf("356307042441013")).isEqualTo(2);
    }

    @Test
    void aNamespacesHashTagStaysOffThePartitionedKeys_soTheySpreadOverACluster() {
        IngestKeys keys = new IngestKeys(new RedisKeys("{fleet}:"), 16);
        assertThat(keys.telemetry(3)).isEqualTo("fleet:telemetry:{3}");
        assertThat(keys.dedupRecent("490154203237518")).isEqualTo("fleet:dedup:recent:{0}:490154203237518");
        assertThat(keys.dedupPrevious("490154203237518")).isEqualTo("fleet:dedup:previous:{0}:490154203237518");
        assertThat(keys.deviceInfo("490154203237518")).isEqualTo("{fleet}:device:info:490154203237518");
        assertThat(keys.telemetryLayout()).isEqualTo("{fleet}:telemetry:partitions");
        assertThat(keys.partitionedKeysOwner()).isEqualTo("fleet:telemetry:namespace");
        IngestKeys one = new IngestKeys(new RedisKeys("{fleet}:"));
        assertThat(one.telemetry()).as("one partition: every key in the namespace's slot").isEqualTo("{fleet}:telemetry");
        assertThat(one.dedupRecent("490154203237518")).isEqualTo("{fleet}:dedup:recent:490154203237518");
        assertThat(one.partitionedKeysOwner()).isEqualTo("{fleet}:telemetry:namespace");
    }

    @Test
    void thePartitionCountIsBounded() {
        assertThatThrownBy(() -> new IngestKeys(new RedisKeys(""), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IngestKeys(new RedisKeys(""), TelemetryLayout.MAX_PARTITIONS + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IngestKeys(new RedisKeys(""), 4).telemetry(4))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }
}
