package org.fleetpipe.teltonika.bridge.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Entry ids compared and stepped back as Redis orders them. */
class EntryIdsTest {

    @Test
    void compare_byMillisThenSequence_unsigned() {
        assertThat(EntryIds.compare("5-3", "5-3")).isZero();
        assertThat(EntryIds.compare("5-3", "5-10")).isNegative();
        assertThat(EntryIds.compare("10-0", "9-99")).isPositive();
        assertThat(EntryIds.compare("1-18446744073709551615", "2-0")).isNegative();
    }

    @Test
    void before_isTheIdJustBefore() {
        assertThat(EntryIds.before("0-0")).isEqualTo("0-0");
        assertThat(EntryIds.before("1795502830415-4")).isEqualTo("1795502830415-3");
        assertThat(EntryIds.before("1795502830415-0")).isEqualTo("1795502830414-" + Long.MAX_VALUE);
        assertThat(EntryIds.before("0-1")).isEqualTo("0-0");
    }
}
