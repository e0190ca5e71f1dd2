package org.fleetpipe.teltonika.server.api;

import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The API's one route table: method and path template to handler. A path that fits a template
 * but not with its method is a wrong method (405 with {@code Allow}); a path that fits no template
 * is unknown (404).
 */
public final class RouteTable {

    /** What a method and path came to. */
    public sealed interface Match permits Found, WrongMethod, NotFound {
    }

    /** The route to call, with the path's parameters. */
    public record Found(Route route, Map<String, String> params) implements Match {
    }

    /** The path is known, the method is not one of {@code allowed}. */
    public record WrongMethod(Set<HttpMethod> allowed) implements Match {
    }

    /** No template fits; {@code message} says what would. */
    public record NotFound(String message) implements Match {
    }

    private final Map<String, ApiResource> resources = new LinkedHashMap<>();

    public RouteTable(List<ApiResource> resources) {
        for (ApiResource resource : resources) {
            if (this.resources.put(resource.name(), resource) != null) {
                throw new IllegalArgumentException("two resources named " + resource.name());
            }
        }
    }

    /** Every route, in the order the resources were given. */
    public List<Route> routes() {
        List<Route> all = new ArrayList<>();
        resources.values().forEach(r -> all.addAll(r.routes()));
        return all;
    }

    /** @param path the decoded path after {@code /api/v1/} */
    public Match match(HttpMethod method, String path) {
        List<String> segments = path.isEmpty() ? List.of() : List.of(path.split("/", -1));
        ApiResource resource = segments.isEmpty() ? null : resources.get(segments.get(0));
        if (resource == null) {
            return new NotFound("no such resource: " + path);
        }
        Set<HttpMethod> allowed = new LinkedHashSet<>();
        for (Route route : resource.routes()) {
            Map<String, String> params = route.match(segments);
            if (params == null) {
                continue;
            }
            if (route.method().equals(method)) {
                return new Found(route, params);
            }
            allowed.add(route.method());
        }
        return allowed.isEmpty() ? new NotFound(resource.hint().apply(segments)) : new WrongMethod(allowed);
    }
}
