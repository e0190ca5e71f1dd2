package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.oneOf;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;
import static org.fleetpipe.teltonika.server.config.SettingValues.refuse;
import static org.fleetpipe.teltonika.server.config.SettingValues.string;
import static org.fleetpipe.teltonika.server.config.SettingValues.typed;

import com.typesafe.config.Config;
import java.time.Duration;
import org.fleetpipe.teltonika.registry.HeartbeatDeleteMeans;

/**
 * This instance among the replicas: its id, its heartbeat in Redis, and how many instance ids
 * are remembered.
 *
 * @param heartbeatInterval at most half of {@code heartbeatTtl}, so one missed renewal is not a death
 * @param heartbeatDeleteMeans what a heartbeat key deleted while Redis answers means: come back under
 *                          a new id ({@code expiry}), or drain and exit 0 ({@code shutdown})
 */
public record InstanceSettings(String idPrefix, Duration heartbeatTtl, Duration heartbeatInterval,
                               int maxKnownInstances, HeartbeatDeleteMeans heartbeatDeleteMeans) {

    static InstanceSettings from(Config c) {
        Duration ttl = positive(c, "heartbeat.ttl");
        Duration interval = positive(c, "heartbeat.interval");
        if (interval.multipliedBy(2).compareTo(ttl) > 0) {
            throw refuse(c, "heartbeat.interval", interval.toMillis() + " ms must be at most half of "
                    + typed(c, "heartbeat.ttl") + ", " + ttl.toMillis() + " ms");
        }
        return new InstanceSettings(string(c, "instance-id-prefix"), ttl, interval,
                intIn(c, "registry.max-known-instances", 10, 10_000_000),
                HeartbeatDeleteMeans.of(oneOf(c, "heartbeat.delete-means", HeartbeatDeleteMeans.EXPIRY.label(),
                        HeartbeatDeleteMeans.SHUTDOWN.label())));
    }
}
