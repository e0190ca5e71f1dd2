package org.fleetpipe.teltonika.server.devices;

import java.util.Locale;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.payload.TelemetryKeys;
import org.fleetpipe.teltonika.server.command.CommandReplies;
import org.fleetpipe.teltonika.server.command.TakenCommand;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code MODEL_FROM_GETVER=true}: a device's reply to a {@code getver} command stores the model it
 * names ({@code Hw:FMB920}) in {@code devices:models}. The write is asynchronous; a failed one is
 * logged and counted ({@code teltonika_redis_errors_total{op="device-model"}}), never fatal.
 */
public final class ModelFromGetver implements CommandReplies {

    private static final Logger LOG = LoggerFactory.getLogger(ModelFromGetver.class);

    private final DeviceModels models;
    private final IngestionMetrics metrics;

    public ModelFromGetver(DeviceModels models, IngestionMetrics metrics) {
        this.models = models;
        this.metrics = metrics;
    }

    @Override
    public void replied(Imei imei, TakenCommand command, String text) {
        if (!command.text().trim().toLowerCase(Locale.ROOT).equals("getver")) {
            return;
        }
        GetverModel.parse(text).ifPresentOrElse(model -> models.store(imei, model).whenComplete((ok, error) -> {
            if (error != null) {
                metrics.redisError("device-model");
                LOG.warn("could not store the model from getver imei={} model={}: {}", imei, model, error.toString());
            } else {
                metrics.command("model-learned");
                LOG.info("device model learned from getver imei={} model={} known={}", imei, model,
                        models.known(model));
            }
        }), () -> LOG.info("getver reply of imei={} names no model (no Hw:<model>); {} unchanged", imei,
                TelemetryKeys.DEVICE_MODELS));
    }
}
