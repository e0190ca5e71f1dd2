package org.fleetpipe.teltonika.server.api;

import io.netty.handler.codec.http.HttpResponseStatus;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.devices.DeviceModels;

/**
 * {@code PUT|GET|DELETE /api/v1/devices/{imei}/model} (reached through {@link DeviceResource}): the
 * device model the bridge names IO elements by. A model the IO dictionary does not know is stored
 * all the same, answered {@code "known": false}: the bridge then writes no {@code io_named}.
 */
public final class DeviceModelResource {

    /** The body of the PUT. */
    public record ModelRequest(String model) {
    }

    /** A device's model, and whether the IO dictionary knows it. */
    public record ModelView(String imei, String model, boolean known) {
    }

    private final DeviceModels models;

    public DeviceModelResource(DeviceModels models) {
        this.models = models;
    }

    void put(ApiCall call, Imei imei) {
        RequestBody.Result<ModelRequest> body = call.body(ModelRequest.class);
        if (body instanceof RequestBody.Malformed<ModelRequest>) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-json", "the body must be a JSON object such as"
                    + " {\"model\": \"FMB920\"}");
            return;
        }
        if (body instanceof RequestBody.UnknownField<ModelRequest> unknown) {
            call.error(HttpResponseStatus.BAD_REQUEST, "unknown-field", "unknown field '"
                    + RequestBody.shown(unknown.name()) + "'; the fields are " + String.join(", ", unknown.fields()));
            return;
        }
        String given = body instanceof RequestBody.Bound<ModelRequest> bound ? bound.value().model() : null;
        String model = given == null ? null : given.trim();
        if (model == null || !DeviceModels.MODEL.matcher(model).matches()) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-model", "model must be 1..32 characters of A-Z, a-z,"
                    + " 0-9, _ and -, such as \"FMB920\"");
            return;
        }
        models.store(imei, model).whenComplete((ok, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
            } else {
                call.json(HttpResponseStatus.OK, new ModelView(imei.value(), model, models.known(model)));
            }
        });
    }

    void get(ApiCall call, Imei imei) {
        models.find(imei).whenComplete((model, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
            } else if (model.isEmpty()) {
                call.error(HttpResponseStatus.NOT_FOUND, "no-model", "no model is stored for " + imei);
            } else {
                call.json(HttpResponseStatus.OK, new ModelView(imei.value(), model.get(), models.known(model.get())));
            }
        });
    }

    void delete(ApiCall call, Imei imei) {
        models.remove(imei).whenComplete((removed, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
            } else if (!removed) {
                call.error(HttpResponseStatus.NOT_FOUND, "no-model", "no model is stored for " + imei);
            } else {
                call.noContent();
            }
        });
    }
}
