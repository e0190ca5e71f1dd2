package org.fleetpipe.teltonika.bridge.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The lease keys are spelled as the partitions' streams are: on a cluster, each in its stream's slot. */
class StreamKeysTest {

    @Test
    void leases_onePerPartition_theNamespacesBracesTakenOutWhenPartitioned() {
        assertThat(new StreamKeys("", "http", 4).lease(3)).isEqualTo("bridge:lease:http:{3}");
        assertThat(new StreamKeys("{fleet}:", "http", 4).lease(0)).isEqualTo("fleet:bridge:lease:http:{0}");
        assertThat(new StreamKeys("{fleet}:", "http", 4).telemetryStreams().get(0)).isEqualTo("fleet:telemetry:{0}");
    }

    @Test
    void oneLease_whenUnpartitioned_namedAsTheOneStreamIs() {
        assertThat(new StreamKeys("", "kafka", 1).lease(0)).isEqualTo("bridge:lease:kafka");
        assertThat(new StreamKeys("{fleet}:", "kafka", 1).lease(0)).isEqualTo("{fleet}:bridge:lease:kafka");
        assertThat(new StreamKeys("{fleet}:", "kafka", 1).members()).isEqualTo("{fleet}:bridge:members:kafka");
    }
}
