package org.fleetpipe.teltonika.server.api;

import java.util.List;
import java.util.function.Function;

/**
 * The operations under one first path segment, e.g. {@code devices}, and the hint a path under it
 * that fits none of them gets with its 404.
 *
 * @param hint the 404's message, from the path's segments (the first is {@code name})
 */
public record ApiResource(String name, List<Route> routes, Function<List<String>, String> hint) {

    public ApiResource {
        routes = List.copyOf(routes);
        for (Route route : routes) {
            if (!route.segments().get(0).equals(name)) {
                throw new IllegalArgumentException(route.operation() + " is not under " + name);
            }
        }
    }

    /** A resource whose 404 hint is the same text for every path. */
    public static ApiResource of(String name, String hint, Route... routes) {
        return new ApiResource(name, List.of(routes), segments -> hint);
    }
}
