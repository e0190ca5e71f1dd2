package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;
import static org.fleetpipe.teltonika.server.config.SettingValues.refuse;
import static org.fleetpipe.teltonika.server.config.SettingValues.string;
import static org.fleetpipe.teltonika.server.config.SettingValues.typed;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * This instance among the replicas: its id, its heartbeat in Redis, and how many instance ids
 * are remembered.
 *
 * @param heartbeatInterval at most half of {@code heartbeatTtl}, so one missed renewal is not a death
 */
public record InstanceSettings(String idPrefix, Duration heartbeatTtl, Duration heartbeatInterval,
                               int maxKnownInstances) {

    static InstanceSettings from(Config c) {
        Duration ttl = positive(c, "heartbeat.ttl");
        Duration interval = positive(c, "heartbeat.interval");
        if (interval.multipliedBy(2).compareTo(ttl) > 0) {
            throw refuse(c, "heartbeat.interval", interval.toMillis() + " ms must be at most half of "
                    + typed(c, "heartbeat.ttl") + ", " + ttl.toMillis() + " ms");
        }
        return new InstanceSettings(string(c, "instance-id-prefix"), ttl, interval,
                intIn(c, "registry.max-known-instances", 10, 10_000_000));
    }
}
