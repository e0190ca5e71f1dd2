package org.fleetpipe.teltonika.server.api;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.fleetpipe.teltonika.registry.InstanceDirectory;
import org.fleetpipe.teltonika.registry.RemoteShutdown;

/**
 * {@code GET /api/v1/instances}: live instances with their heartbeat fields and device counts;
 * {@code POST /api/v1/instances/{id}/shutdown}: that instance drains and exits 0.
 */
public final class InstanceResource {

    /**
     * The live instances, each its id and then its heartbeat's fields as the heartbeat has them
     * (whatever a newer or older version writes there is shown as it is).
     */
    public record InstanceList(List<Map<String, Object>> instances) {
    }

    /** A shutdown that was asked for. */
    public record Stopping(String id, String status) {
    }

    /** What an instance id can look like: a host name or INSTANCE_ID, a dash and a number. */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,255}");

    private final InstanceDirectory directory;
    private final RemoteShutdown shutdown;

    public InstanceResource(InstanceDirectory directory, RemoteShutdown shutdown) {
        this.directory = directory;
        this.shutdown = shutdown;
    }

    public ApiResource resource() {
        return ApiResource.of("instances", "try GET /api/v1/instances or POST /api/v1/instances/{id}/shutdown",
                Route.get("instances", this::list), Route.post("instances/{id}/shutdown", this::stop));
    }

    private void list(ApiCall call) {
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
            call.json(HttpResponseStatus.OK, new InstanceList(instances));
        });
    }

    private void stop(ApiCall call) {
        String id = call.param("id");
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
                call.json(HttpResponseStatus.ACCEPTED, new Stopping(id, "stopping"));
            }
        });
    }
}
