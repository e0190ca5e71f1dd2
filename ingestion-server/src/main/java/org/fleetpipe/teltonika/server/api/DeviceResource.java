package org.fleetpipe.teltonika.server.api;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.function.BiConsumer;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.session.DeviceLookup;

/**
 * {@code GET /api/v1/devices/{imei}}: where the device is connected, since when, and its last
 * record; {@code GET|POST /api/v1/devices/{imei}/commands} go to {@link CommandResource}, the
 * {@code /capture} operations to {@link CaptureResource}.
 */
public final class DeviceResource {

    /** A connected device. */
    public record DeviceView(String imei, String instance, Long connectedSince, String remote, Long lastRecordAt) {
    }

    private final DeviceLookup devices;
    private final CommandResource commands;
    private final CaptureResource captures;
    private final DeviceModelResource models;

    public DeviceResource(DeviceLookup devices, CommandResource commands, CaptureResource captures,
                          DeviceModelResource models) {
        this.devices = devices;
        this.commands = commands;
        this.captures = captures;
        this.models = models;
    }

    public ApiResource resource() {
        return ApiResource.of("devices", "try GET /api/v1/devices/{imei}, GET|POST /api/v1/devices/{imei}/commands or"
                        + " POST|GET|DELETE /api/v1/devices/{imei}/capture or PUT|GET|DELETE /api/v1/devices/{imei}/model",
                Route.get("devices/{imei}", call -> withImei(call, this::status)),
                Route.get("devices/{imei}/commands", call -> withImei(call, commands::list)),
                Route.post("devices/{imei}/commands", call -> withImei(call, commands::submit)),
                Route.post("devices/{imei}/capture", call -> withImei(call, captures::start)),
                Route.get("devices/{imei}/capture", call -> withImei(call, captures::read)),
                Route.delete("devices/{imei}/capture", call -> withImei(call, captures::stop)),
                Route.put("devices/{imei}/model", call -> withImei(call, models::put)),
                Route.get("devices/{imei}/model", call -> withImei(call, models::get)),
                Route.delete("devices/{imei}/model", call -> withImei(call, models::delete)));
    }

    private static void withImei(ApiCall call, BiConsumer<ApiCall, Imei> then) {
        Imei imei;
        try {
            imei = Imei.parse(call.param("imei"), false);
        } catch (CodecException e) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-imei", e.getMessage());
            return;
        }
        then.accept(call, imei);
    }

    private void status(ApiCall call, Imei imei) {
        devices.find(imei).whenComplete((location, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
            } else if (location.isEmpty()) {
                call.error(HttpResponseStatus.NOT_FOUND, "not-connected", "no instance holds a connection of " + imei);
            } else {
                DeviceLookup.Location at = location.get();
                call.json(HttpResponseStatus.OK, new DeviceView(imei.value(), at.instance(), at.connectedSince(),
                        at.remote(), at.lastRecordAt()));
            }
        });
    }
}
