package org.fleetpipe.teltonika.server.http.routes;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.registry.InstanceDirectory;
import org.fleetpipe.teltonika.server.http.ApiRequest;
import org.fleetpipe.teltonika.server.http.ApiRoute;

/** {@code GET /api/v1/instances}: live instances with their heartbeat fields and device counts. */
public final class InstanceRoutes implements ApiRoute {

    private final InstanceDirectory directory;

    public InstanceRoutes(InstanceDirectory directory) {
        this.directory = directory;
    }

    @Override
    public String resource() {
        return "instances";
    }

    @Override
    public void handle(ApiRequest call) {
        if (call.segments().length != 1 || !call.request().method().equals(HttpMethod.GET)) {
            call.error(HttpResponseStatus.NOT_FOUND, "not-found", "GET /api/v1/instances is the only call here");
            return;
        }
        directory.live().whenComplete((live, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
                return;
            }
            List<Map<String, Object>> instances = new ArrayList<>();
            live.forEach((id, beat) -> {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("id", id);
                entry.putAll(beat);
                instances.add(entry);
            });
            call.json(HttpResponseStatus.OK, Map.of("instances", instances));
        });
    }
}
