package org.fleetpipe.teltonika.server.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.HttpMethod;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RouteTableTest {

    private static final Route.Handler NONE = call -> { };

    private final RouteTable table = new RouteTable(List.of(
            ApiResource.of("devices", "try the devices", Route.get("devices/{imei}", NONE),
                    Route.post("devices/{imei}/commands", NONE)),
            ApiResource.of("admission", "try the lists", Route.get("admission", NONE),
                    Route.put("admission/{list}/{imei}", NONE), Route.delete("admission/{list}/{imei}", NONE))));

    @Test
    void knownPathAndMethod_isFound_withItsParameters() {
        RouteTable.Match match = table.match(HttpMethod.DELETE, "admission/denied/352093081452251");

        assertThat(match).isInstanceOf(RouteTable.Found.class);
        RouteTable.Found found = (RouteTable.Found) match;
        assertThat(found.route().operation()).isEqualTo("DELETE /api/v1/admission/{list}/{imei}");
        assertThat(found.params()).isEqualTo(Map.of("list", "denied", "imei", "352093081452251"));
    }

    @Test
    void parameter_matchesAnEmptySegmentToo_soItsHandlerAnswers() {
        assertThat(table.match(HttpMethod.GET, "devices/")).isInstanceOf(RouteTable.Found.class);
    }

    @Test
    void knownPath_withAnotherMethod_isWrongMethod_withTheAllowedOnesInTableOrder() {
        assertThat(table.match(HttpMethod.GET, "admission/denied/1"))
                .isEqualTo(new RouteTable.WrongMethod(new java.util.LinkedHashSet<>(
                        List.of(HttpMethod.PUT, HttpMethod.DELETE))));
        assertThat(table.match(HttpMethod.HEAD, "devices/1"))
                .isEqualTo(new RouteTable.WrongMethod(java.util.Set.of(HttpMethod.GET)));
    }

    @Test
    void unknownPath_underAResource_isNotFound_withItsHint_andOutsideAny_namesThePath() {
        assertThat(table.match(HttpMethod.GET, "devices")).isEqualTo(new RouteTable.NotFound("try the devices"));
        assertThat(table.match(HttpMethod.GET, "devices/1/commands/2"))
                .isEqualTo(new RouteTable.NotFound("try the devices"));
        assertThat(table.match(HttpMethod.GET, "nope/1")).isEqualTo(new RouteTable.NotFound("no such resource: nope/1"));
        assertThat(table.match(HttpMethod.GET, "")).isEqualTo(new RouteTable.NotFound("no such resource: "));
    }

    @Test
    void route_outsideItsResource_orTwoResourcesOfOneName_areRefused() {
        assertThatThrownBy(() -> ApiResource.of("devices", "", Route.get("commands/{id}", NONE)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RouteTable(List.of(ApiResource.of("a", ""), ApiResource.of("a", ""))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
