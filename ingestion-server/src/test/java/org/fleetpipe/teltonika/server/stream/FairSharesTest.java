package org.fleetpipe.teltonika.server.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Max-min fair levels: who fits is never cut, the heaviest are cut first, networks before devices. */
class FairSharesTest {

    @Test
    void usesBelowTheBudget_thenNoLevel() {
        assertThat(FairShares.level(100, new long[] {10, 40, 49})).isEqualTo(FairShares.UNLIMITED);
        assertThat(FairShares.level(100, new long[0])).isEqualTo(FairShares.UNLIMITED);
    }

    @Test
    void usesExactlyTheBudget_thenTheLevelIsTheHeaviestUse() {
        assertThat(FairShares.level(50, new long[] {10, 40})).isEqualTo(40);
        assertThat(FairShares.level(50, new long[] {25, 25})).isEqualTo(25);
    }

    @Test
    void usesOverTheBudget_thenTheSmallFitWhole_andTheHeavySplitWhatIsLeft() {
        // 10 fits; 80 left for two heavier users: 40 each; the one at 40 fits; 40 left for the heaviest.
        assertThat(FairShares.level(90, new long[] {100, 10, 40})).isEqualTo(40);
        // 10 fits; 80 left for two at 100: 40 each.
        assertThat(FairShares.level(90, new long[] {100, 10, 100})).isEqualTo(40);
        assertThat(FairShares.level(0, new long[] {1})).isZero();
    }

    @Test
    void aLevel_thenEveryUseCountedUpToItFitsTheBudget() {
        long[] uses = {3, 900, 17, 250, 250, 1, 77};
        // They add up to 1,498: from there on every use fits (at 1,498 exactly, up to the heaviest).
        for (long budget = 0; budget < 1500; budget += 7) {
            long level = FairShares.level(budget, uses);
            long counted = 0;
            for (long u : uses) {
                counted += Math.min(u, level);
            }
            assertThat(counted).as("budget %d level %d", budget, level).isLessThanOrEqualTo(budget);
            if (level < 900) {
                long more = 0;
                for (long u : uses) {
                    more += Math.min(u, level + 1);
                }
                assertThat(more).as("one more would not fit, budget %d", budget).isGreaterThan(budget);
            }
        }
    }

    @Test
    void aNetworkOfManyDevicesOverItsShare_thenItsDevicesSplitTheNetworksLevel_theLightNetworkIsNotCut() {
        Map<String, long[]> networks = new LinkedHashMap<>();
        networks.put("many", new long[] {10, 10, 10, 10, 10, 10, 10, 10, 10, 10});
        networks.put("light", new long[] {5, 5});
        networks.put("one-heavy", new long[] {60, 2});

        FairShares.Levels<String> levels = FairShares.of(100, networks);

        // 10 for the light network; 90 left for the two heavier ones: 45 each.
        assertThat(levels.network()).isEqualTo(45);
        assertThat(levels.device("light")).as("within its share: none of its devices cut")
                .isEqualTo(FairShares.UNLIMITED);
        assertThat(levels.device("many")).as("45 over ten devices").isEqualTo(4);
        assertThat(levels.device("one-heavy")).as("the small device fits, the heavy one gets the rest").isEqualTo(43);
    }

    @Test
    void noNetworkOverTheBudget_thenNoDeviceLevels() {
        FairShares.Levels<String> levels = FairShares.of(100, Map.of("a", new long[] {30}, "b", new long[] {20, 20}));

        assertThat(levels.network()).isEqualTo(FairShares.UNLIMITED);
        assertThat(levels.deviceLevels()).isEmpty();
    }
}
