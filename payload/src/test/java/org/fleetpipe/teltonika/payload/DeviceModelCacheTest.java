package org.fleetpipe.teltonika.payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DeviceModelCacheTest {

    private final Map<String, String> hash = new HashMap<>();
    private final List<List<String>> lookups = new ArrayList<>();
    private final AtomicLong now = new AtomicLong();
    private final DeviceModelCache cache = new DeviceModelCache(imeis -> {
        lookups.add(List.copyOf(imeis));
        Map<String, String> found = new HashMap<>();
        for (String imei : imeis) {
            if (hash.containsKey(imei)) {
                found.put(imei, hash.get(imei));
            }
        }
        return found;
    }, Duration.ofSeconds(60), now::get);

    @Test
    void oneLookupPerDeviceAndTtl_absentModelsRememberedToo() {
        hash.put("352093081452251", "FMB920");

        for (int i = 0; i < 100; i++) {
            assertThat(cache.modelOf("352093081452251")).isEqualTo("FMB920");
            assertThat(cache.modelOf("490154203237518")).isNull();
        }

        assertThat(lookups).containsExactly(List.of("352093081452251"), List.of("490154203237518"));
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

    @Test
    void aBatch_isOneLookupOfTheDevicesNotCached_eachOnce() {
        hash.put("352093081452251", "FMB920");
        cache.modelOf("490154203237518");

        cache.prefetch(List.of("352093081452251", "490154203237518", "352093081452251", "356307042441013"));

        assertThat(lookups).containsExactly(List.of("490154203237518"),
                List.of("352093081452251", "356307042441013"));
        assertThat(cache.cachedModelOf("352093081452251")).isEqualTo("FMB920");
        assertThat(cache.cachedModelOf("356307042441013")).isNull();
        assertThat(cache.cachedModelOf("111111111111111")).as("never prefetched: no lookup").isNull();
        assertThat(lookups).hasSize(2);
    }

    @Test
    void aFailedLookup_keepsWhatWasCached() {
        hash.put("352093081452251", "FMB920");
        DeviceModelCache failing = new DeviceModelCache(imeis -> {
            if (now.get() > 0) {
                throw new IllegalStateException("Redis down");
            }
            return Map.of("352093081452251", hash.get("352093081452251"));
        }, Duration.ofSeconds(60), now::get);
        failing.prefetch(List.of("352093081452251"));
        now.addAndGet(Duration.ofSeconds(61).toNanos());

        assertThatThrownBy(() -> failing.prefetch(List.of("352093081452251"))).hasMessage("Redis down");
        assertThat(failing.cachedModelOf("352093081452251")).isEqualTo("FMB920");
    }

    @Test
    void pastTheBound_theExpiredGoFirst_andOnlyWhenNoneAreDoesItStartOver() {
        DeviceModelCache small = new DeviceModelCache(imeis -> Map.of(), 4, Duration.ofSeconds(60), now::get);
        small.prefetch(List.of("100000000000001", "100000000000002", "100000000000003", "100000000000004"));

        now.addAndGet(Duration.ofSeconds(30).toNanos());
        small.prefetch(List.of("352093081452251"));
        assertThat(small.size()).as("none expired: started over with the new device").isOne();

        small.prefetch(List.of("100000000000001", "100000000000002"));
        now.addAndGet(Duration.ofSeconds(20).toNanos());
        small.prefetch(List.of("356307042441013"));
        assertThat(small.size()).as("at the bound, nothing dropped yet").isEqualTo(4);

        now.addAndGet(Duration.ofSeconds(45).toNanos());
        small.prefetch(List.of("490154203237518"));
        assertThat(small.size()).as("the three expired dropped, the live one kept").isEqualTo(2);
    }
}
