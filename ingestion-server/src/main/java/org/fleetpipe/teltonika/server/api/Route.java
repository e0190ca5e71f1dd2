package org.fleetpipe.teltonika.server.api;

import io.netty.handler.codec.http.HttpMethod;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One operation of the API: a method, a path template under {@code /api/v1/} such as
 * {@code devices/{imei}/commands} (a {@code {name}} segment matches any one segment, an empty one
 * too), and its handler.
 */
public record Route(HttpMethod method, String template, Handler handler) {

    /** Answers one call; exactly one answer, possibly later from another thread. */
    @FunctionalInterface
    public interface Handler {
        void handle(ApiCall call);
    }

    public static Route get(String template, Handler handler) {
        return new Route(HttpMethod.GET, template, handler);
    }

    public static Route post(String template, Handler handler) {
        return new Route(HttpMethod.POST, template, handler);
    }

    public static Route put(String template, Handler handler) {
        return new Route(HttpMethod.PUT, template, handler);
    }

    public static Route delete(String template, Handler handler) {
        return new Route(HttpMethod.DELETE, template, handler);
    }

    /** The template's segments. */
    List<String> segments() {
        return List.of(template.split("/", -1));
    }

    /** The path parameters when {@code path} fits the template (whatever the method), else null. */
    Map<String, String> match(List<String> path) {
        List<String> parts = segments();
        if (parts.size() != path.size()) {
            return null;
        }
        Map<String, String> params = new LinkedHashMap<>();
        for (int i = 0; i < parts.size(); i++) {
            String part = parts.get(i);
            if (part.startsWith("{") && part.endsWith("}")) {
                params.put(part.substring(1, part.length() - 1), path.get(i));
            } else if (!part.equals(path.get(i))) {
                return null;
            }
        }
        return params;
    }

    /** {@code GET /api/v1/commands/{id}}: how the spec and the logs name it. */
    public String operation() {
        return method + " " + ApiCall.PREFIX + template;
    }
}
