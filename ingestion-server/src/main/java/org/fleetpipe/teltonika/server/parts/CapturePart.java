package org.fleetpipe.teltonika.server.parts;

import org.fleetpipe.teltonika.registry.InstanceEvent;
import org.fleetpipe.teltonika.server.capture.CaptureMetrics;
import org.fleetpipe.teltonika.server.capture.CaptureService;
import org.fleetpipe.teltonika.server.capture.CaptureSettings;
import org.fleetpipe.teltonika.server.capture.RedisCaptureSink;
import org.fleetpipe.teltonika.server.tcp.CaptureTaps;

/**
 * Support captures: the service the API calls, and the taps the device pipelines get at login and
 * on {@code capture <imei>} events.
 */
public final class CapturePart implements Part {

    private final Shared shared;
    private final RedisPart redis;
    private final InstancePart instance;
    private CaptureService service;
    private CaptureTaps taps;

    public CapturePart(Shared shared, RedisPart redis, InstancePart instance) {
        this.shared = shared;
        this.redis = redis;
        this.instance = instance;
    }

    @Override
    public void start() {
        CaptureSettings settings = shared.settings().devices().capture();
        service = new CaptureService(redis.apiAsync(), redis.keys(), settings);
        taps = new CaptureTaps(new RedisCaptureSink(redis.async(), redis.keys(), settings),
                new CaptureMetrics(shared.registry()), shared.sessions());
        instance.events().on(InstanceEvent.CAPTURE, taps);
    }

    CaptureService service() {
        return service;
    }

    CaptureTaps taps() {
        return taps;
    }
}
