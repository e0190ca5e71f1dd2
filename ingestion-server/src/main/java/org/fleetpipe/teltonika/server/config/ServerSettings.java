package org.fleetpipe.teltonika.server.config;

import org.fleetpipe.teltonika.janitor.JanitorSettings;
import org.fleetpipe.teltonika.server.command.CommandSettings;
import org.fleetpipe.teltonika.server.health.QueueHealthSettings;
import org.fleetpipe.teltonika.server.ops.OpsSettings;

/**
 * Every server setting, read and checked once at start ({@link SettingsLoader}), one section per
 * concern. Each section reads its own keys ({@code from(Config)}); a section whose record lives in
 * the package that uses it is read by a {@code ...Section} class here, as only this package reads
 * Typesafe Config.
 */
public record ServerSettings(
        ListenerSettings listeners,
        RedisSettings redis,
        InstanceSettings instance,
        DeviceSettings devices,
        TelemetrySettings telemetry,
        CommandSettings commands,
        QueueHealthSettings queueHealth,
        OpsSettings ops,
        JanitorSettings janitor,
        HttpSettings http,
        ShutdownSettings shutdown) {

    /** Copy with other listener ports, the health port as it was; tests bind to 0 to get free ones. */
    public ServerSettings withPorts(int tcp, int udp, int http) {
        return withPorts(tcp, udp, http, this.http.healthPort());
    }

    /** Copy with other listener ports, the health port's too; tests bind to 0 to get free ones. */
    public ServerSettings withPorts(int tcp, int udp, int http, int health) {
        return new ServerSettings(listeners.withPorts(tcp, udp), redis, instance, devices, telemetry, commands,
                queueHealth, ops, janitor, this.http.withPorts(http, health), shutdown);
    }
}
