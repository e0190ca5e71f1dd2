package org.fleetpipe.teltonika.server.http.routes;

import io.lettuce.core.api.async.RedisAsyncCommands;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.LinkedHashMap;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.http.ApiRequest;
import org.fleetpipe.teltonika.server.http.ApiRoute;

/**
 * {@code GET /api/v1/devices/{imei}}: where the device is connected, since when, and its last
 * record; {@code POST /api/v1/devices/{imei}/commands} goes to {@link CommandRoutes}.
 */
public final class DeviceRoutes implements ApiRoute {

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final CommandRoutes commands;

    public DeviceRoutes(RedisAsyncCommands<String, String> redis, RedisKeys keys, CommandRoutes commands) {
        this.redis = redis;
        this.keys = keys;
        this.commands = commands;
    }

    @Override
    public String resource() {
        return "devices";
    }

    @Override
    public void handle(ApiRequest call) {
        String[] path = call.segments();
        boolean status = path.length == 2 && call.request().method().equals(HttpMethod.GET);
        boolean command = path.length == 3 && path[2].equals("commands")
                && call.request().method().equals(HttpMethod.POST);
        if (!status && !command) {
            call.error(HttpResponseStatus.NOT_FOUND, "not-found",
                    "try GET /api/v1/devices/{imei} or POST /api/v1/devices/{imei}/commands");
            return;
        }
        Imei imei;
        try {
            imei = Imei.parse(path[1], false);
        } catch (CodecException e) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-imei", e.getMessage());
            return;
        }
        if (command) {
            commands.submit(call, imei);
            return;
        }
        redis.hget(keys.registry(), imei.value()).thenCombine(redis.hgetall(keys.deviceInfo(imei.value())),
                (owner, info) -> {
                    if (owner == null) {
                        call.error(HttpResponseStatus.NOT_FOUND, "not-connected",
                                "no instance holds a connection of " + imei);
                        return null;
                    }
                    Map<String, Object> body = new LinkedHashMap<>();
                    body.put("imei", imei.value());
                    body.put("instance", owner);
                    body.put("connected_since", number(info.get("connected_at")));
                    body.put("remote", info.get("remote"));
                    body.put("last_record_at", number(info.get("last_record_at")));
                    call.json(HttpResponseStatus.OK, body);
                    return null;
                }).exceptionally(error -> {
                    call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
                    return null;
                });
    }

    private static Long number(String text) {
        return text == null ? null : Long.valueOf(text);
    }
}
