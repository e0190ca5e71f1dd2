package org.fleetpipe.teltonika.registry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedisKeysTest {

    @Test
    void theRegistrysKeys_carryTheNamespaceAsWritten() {
        RedisKeys keys = new RedisKeys("{fleet}:");
        assertThat(keys.namespace()).isEqualTo("{fleet}:");
        assertThat(keys.registry()).isEqualTo("{fleet}:connections:registry");
        assertThat(keys.heartbeat("ingest-1")).isEqualTo("{fleet}:instance:heartbeat:ingest-1");
        assertThat(keys.shutdownMarker("ingest-1")).isEqualTo("{fleet}:instance:shutdown:ingest-1");
        assertThat(keys.instanceIds()).isEqualTo("{fleet}:instance:ids");
        assertThat(keys.instanceEvents("ingest-1")).isEqualTo("{fleet}:instance:events:ingest-1");
        assertThat(keys.instanceEventsPrefix()).isEqualTo("{fleet}:instance:events:");
        assertThat(keys.deviceInfo("490154203237518")).isEqualTo("{fleet}:device:info:490154203237518");
        assertThat(keys.instanceSeq()).isEqualTo("{fleet}:instance:seq");
    }

    @Test
    void noNamespace_isTheBareNames() {
        assertThat(new RedisKeys(null).registry()).isEqualTo("connections:registry");
        assertThat(new RedisKeys("").namespace()).isEmpty();
    }
}
