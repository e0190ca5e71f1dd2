package org.fleetpipe.teltonika.bridge.stream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GroupStartTest {

    @Test
    void theGroupIsSetJustBeforeTheFirstEntryToDeliver() {
        assertThat(EntryIds.before("1795502830415-3")).isEqualTo("1795502830415-2");
        assertThat(EntryIds.before("1795502830415-0")).isEqualTo("1795502830414-" + Long.MAX_VALUE);
        assertThat(EntryIds.before("0-0")).isEqualTo("0-0");
    }

    @Test
    void idsCompareAsNumbers_notAsText() {
        assertThat(EntryIds.compare("9-0", "10-0")).isNegative();
        assertThat(EntryIds.compare("10-2", "10-10")).isNegative();
        assertThat(EntryIds.compare("10-2", "10-2")).isZero();
    }

    @Test
    void fromEnd_isTheStreamsEnd_andNothingGivenIsEmpty() {
        assertThat(GroupStart.parseFrom("end")).contains(GroupStart.END);
        assertThat(GroupStart.parseFrom(null)).isEmpty();
        assertThat(GroupStart.parseFrom("0")).contains("0-0");
    }
}
