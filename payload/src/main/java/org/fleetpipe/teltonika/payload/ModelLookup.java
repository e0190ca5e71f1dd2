package org.fleetpipe.teltonika.payload;

import java.util.List;
import java.util.Map;

/** Where a {@link DeviceModelCache} looks models up: the models hash, one round trip for many devices. */
@FunctionalInterface
public interface ModelLookup {

    /**
     * The model of each of {@code imeis} that has one (an HMGET of {@link TelemetryKeys#deviceModels});
     * devices without one are left out of the map.
     */
    Map<String, String> modelsOf(List<String> imeis);
}
