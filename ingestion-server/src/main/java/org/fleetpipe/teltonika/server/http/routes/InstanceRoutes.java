package org.fleetpipe.teltonika.server.http.routes;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.fleetpipe.teltonika.registry.InstanceDirectory;
import org.fleetpipe.teltonika.registry.RemoteShutdown;
import org.fleetpipe.teltonika.server.http.ApiRequest;
import org.fleetpipe.teltonika.server.http.ApiRoute;

/**
 * {@code GET /api/v1/instances}: live instances with their heartbeat fields and device counts;
 * {@code POST /api/v1/instances/{id}/shutdown}: that instance drains and exits 0.
 */
public final class InstanceRoutes implements ApiRoute {

    /** What an instance id can look like: a host name or INSTANCE_ID, a dash and a number. */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,255}");

    private final InstanceDirectory directory;
    private final RemoteShutdown shutdown;

    public InstanceRoutes(InstanceDirectory directory, RemoteShutdown shutdown) {
        this.directory = directory;
        this.shutdown = shutdown;
    }

    @Override
    public String resource() {
        return "instances";
    }

    @Override
    public void handle(ApiRequest call) {
        String[] path = call.segments();
        HttpMethod method = call.request().method();
        if (path.length == 1 && method.equals(HttpMethod.GET)) {
            list(call);
        } else if (path.length == 3 && path[2].equals("shutdown") && method.equals(HttpMethod.POST)) {
            stop(call, path[1]);
        } else {
            call.error(HttpResponseStatus.NOT_FOUND, "not-found",
                    "try GET /api/v1/instances or POST /api/v1/instances/{id}/shutdown");
        }
    }

    private void list(ApiRequest call) {
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

    private void stop(ApiRequest call, String id) {
        if (!ID.matcher(id).matches()) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-instance", "not an instance id");
            return;
        }
        shutdown.request(id, "POST /api/v1/instances/" + id + "/shutdown").whenComplete((asked, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
            } else if (!asked) {
                call.error(HttpResponseStatus.NOT_FOUND, "not-found", "no live instance " + id);
            } else {
                call.json(HttpResponseStatus.ACCEPTED, Map.of("id", id, "status", "stopping"));
            }
        });
    }
}
