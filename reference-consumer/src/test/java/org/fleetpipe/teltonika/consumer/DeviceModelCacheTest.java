package org.fleetpipe.teltonika.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DeviceModelCacheTest {

    private final Map<String, String> hash = new HashMap<>();
    private final List<String> lookups = new ArrayList<>();
    private final AtomicLong now = new AtomicLong();
    private final DeviceModelCache cache = new DeviceModelCache(imei -> {
        lookups.add(imei);
        return hash.get(imei);
    }, Duration.ofSeconds(60), now::get);

    @Test
    void oneLookupPerDeviceAndTtl_absentModelsRememberedToo() {
        hash.put("352093081452251", "FMB920");

        for (int i = 0; i < 100; i++) {
            assertThat(cache.modelOf("352093081452251")).isEqualTo("FMB920");
            assertThat(cache.modelOf("490154203237518")).isNull();
        }

        assertThat(lookups).containsExactly("352093081452251", "490154203237518");
    }

    @Test
    void aChangedModel_showsOnceTheTtlPassed() {
        hash.put("352093081452251", "FMB920");
        assertThat(cache.modelOf("352093081452251")).isEqualTo("FMB920");
        hash.put("352093081452251", "FMB640");

        now.addAndGet(Duration.ofSeconds(59).toNanos());
        assertThat(cache.modelOf("352093081452251")).isEqualTo("FMB920");
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(cache.modelOf("352093081452251")).isEqualTo("FMB640");
    }
}
