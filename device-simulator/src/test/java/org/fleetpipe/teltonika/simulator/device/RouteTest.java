package org.fleetpipe.teltonika.simulator.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RouteTest {

    private final Route route = Route.vilniusLoop();

    @Test
    void at_whenDrivingFurther_thenThePositionMovesByAboutThatDistance() {
        RoutePoint previous = route.at(0);
        for (int metres = 100; metres <= 3000; metres += 100) {
            RoutePoint next = route.at(metres);
            // Straight along a segment; a step round a waypoint cuts the corner and is shorter.
            assertThat(Route.distance(previous, next)).isBetween(50.0, 100.5);
            previous = next;
        }
        assertThat(Route.distance(route.at(10), route.at(60))).isCloseTo(50, within(0.5));
    }

    @Test
    void at_afterOneLap_thenBackAtTheStart() {
        RoutePoint start = route.at(0);
        RoutePoint lap = route.at(route.length());
        assertThat(lap.latitude()).isCloseTo(start.latitude(), within(1e-9));
        assertThat(lap.longitude()).isCloseTo(start.longitude(), within(1e-9));
        assertThat(route.length()).isBetween(5_000.0, 15_000.0);
    }

    @Test
    void at_anyDistance_thenStaysInVilniusWithAHeadingFromNorth() {
        for (int metres = 0; metres < 20_000; metres += 250) {
            RoutePoint p = route.at(metres);
            assertThat(p.latitude()).isBetween(54.67, 54.72);
            assertThat(p.longitude()).isBetween(25.26, 25.32);
            assertThat(p.headingDegrees()).isGreaterThanOrEqualTo(0).isLessThan(360);
        }
    }

    @Test
    void at_firstSegment_thenHeadsNorthWest() {
        // The first leg goes from the old town towards the north-west.
        assertThat(route.at(10).headingDegrees()).isBetween(270.0, 360.0);
    }
}
