package org.fleetpipe.teltonika.bridge;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.fleetpipe.teltonika.bridge.delivery.Backoff;
import org.fleetpipe.teltonika.bridge.delivery.DeadLetterRedrive;
import org.fleetpipe.teltonika.bridge.delivery.RecordMaker;
import org.fleetpipe.teltonika.bridge.devices.RedisModelLookup;
import org.fleetpipe.teltonika.bridge.ops.BridgeMetrics;
import org.fleetpipe.teltonika.bridge.sink.Sink;
import org.fleetpipe.teltonika.bridge.stream.StreamKeys;
import org.fleetpipe.teltonika.payload.DeviceModelCache;
import org.fleetpipe.teltonika.payload.IoDictionary;
import org.fleetpipe.teltonika.payload.RecordPayload;
import org.fleetpipe.teltonika.redis.RedisConnector;

/**
 * {@code bridge --redrive}: one pass of the group's dead letters to the sink, then exit. Touches
 * neither the consumer group nor the partition leases, so it runs beside the group's replicas.
 */
final class BridgeRedrive {

    private BridgeRedrive() {}

    static DeadLetterRedrive.Result run(BridgeSettings settings, Sink sink) throws InterruptedException {
        try {
            return runPrepared(settings, sink);
        } finally {
            sink.close();
        }
    }

    private static DeadLetterRedrive.Result runPrepared(BridgeSettings settings, Sink sink) throws InterruptedException {
        sink.prepare();
        try (RedisConnector redis = RedisConnector.connect(settings.redisUrl(), Duration.ofSeconds(10))) {
            StreamKeys keys = StreamKeys.read(redis.sync(), settings.namespace(), settings.group(),
                    settings.partitions());
            RecordMaker maker = new RecordMaker(new RecordPayload(IoDictionary.load()),
                    new DeviceModelCache(new RedisModelLookup(redis.sync(), keys.deviceModels())));
            BridgeMetrics metrics = new BridgeMetrics(new SimpleMeterRegistry(), sink.name(), settings.group(), () -> 0);
            return new DeadLetterRedrive(redis.sync(), keys, sink, maker,
                    new Backoff(Duration.ofMillis(100), settings.maxBackoff()), metrics, settings.batch()).run();
        }
    }
}
