package org.fleetpipe.teltonika.server.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Commands that left between two passes, at least, from what the passes saw. */
class DeparturesTest {

    @Test
    void pendingLeft_countsEmptiedQueuesWhole_aChangedHeadAsAtLeastOne_andShrinkage() {
        Map<String, Departures.Queue> before = Map.of(
                "a", new Departures.Queue(3, "a1"),   // emptied: 3 left
                "b", new Departures.Queue(2, "b1"),   // head changed, one more queued: at least 1
                "c", new Departures.Queue(5, "c1"),   // head changed, shrank by 3: 3
                "d", new Departures.Queue(4, "d1"));  // untouched but grown: 0
        Map<String, Departures.Queue> now = Map.of(
                "b", new Departures.Queue(2, "b2"),
                "c", new Departures.Queue(2, "c4"),
                "d", new Departures.Queue(6, "d1"),
                "e", new Departures.Queue(1, "e1"));

        assertThat(Departures.pendingLeft(before, now)).isEqualTo(3 + 1 + 3);
    }

    @Test
    void inFlightLeft_countsEntriesNoLongerSeen_andPerMinuteScalesToAMinute() {
        assertThat(Departures.inFlightLeft(Set.of("i1 a x:1", "i1 b y:1", "i2 c z:1"), Set.of("i1 a x:1", "i1 b w:1")))
                .isEqualTo(2);
        assertThat(Departures.perMinute(5, 10_000)).isEqualTo(30.0);
        assertThat(Departures.perMinute(5, 0)).isZero();
    }
}
