package org.fleetpipe.teltonika.server.config;

import java.time.Duration;
import java.util.Optional;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.registry.janitor.JanitorSettings;
import org.fleetpipe.teltonika.server.admission.AdmissionMode;
import org.fleetpipe.teltonika.server.command.CommandSettings;
import org.fleetpipe.teltonika.server.ops.OpsSettings;
import org.fleetpipe.teltonika.server.stream.StreamRetentionSettings;

/**
 * Every server setting, read and checked once at start.
 *
 * @param redisUrl empty means: start an embedded redis-server
 * @param ioThreads event loop threads for device connections; 0 means one per available core
 * @param denySweepInterval how often the IMEIs held here are checked against devices:denied, for a
 *                          'deny' message that was lost
 * @param hostile the bounds against hosts without credentials (pre-login, dead letters, new IMEIs,
 *                device messages)
 * @param http the HTTP listeners' address, health port, connection caps, request deadline and
 *             read-only token
 */
public record ServerSettings(
        String bindAddress,
        int tcpPort,
        int udpPort,
        int httpPort,
        TlsSettings tls,
        Optional<String> redisUrl,
        Duration redisCommandTimeout,
        String redisNamespace,
        int embeddedRedisPort,
        String instanceIdPrefix,
        Optional<String> apiToken,
        Duration heartbeatTtl,
        Duration heartbeatInterval,
        int maxKnownInstances,
        Duration deviceInfoTtl,
        JanitorSettings janitor,
        CommandSettings commands,
        OpsSettings ops,
        boolean imeiLuhnCheck,
        AdmissionMode admission,
        Duration refusalLogInterval,
        Duration denySweepInterval,
        int maxConnectionsPerAddress,
        int maxNewConnectionsPerAddressPerSecond,
        DecodeLimits decodeLimits,
        int maxConnections,
        int maxQueuedFrames,
        int maxUdpInFlight,
        Duration loginTimeout,
        Duration readIdleTimeout,
        StreamRetentionSettings retention,
        Duration dedupWindow,
        int ackReplicas,
        Duration ackReplicasTimeout,
        int dedupPerDevice,
        boolean transactionWrites,
        int deadLetterMaxEntries,
        int deadLetterMaxFrameBytes,
        Duration shutdownGrace,
        Duration drainWindow,
        int ioThreads,
        HostileClientLimits hostile,
        HttpSettings http) {

    /** The event loop threads to start for device connections. */
    public int ioThreadCount() {
        return ioThreads > 0 ? ioThreads : Runtime.getRuntime().availableProcessors();
    }

    /** Copy with other listener ports, the health port as it was; tests bind to 0 to get free ones. */
    public ServerSettings withPorts(int tcp, int udp, int http) {
        return withPorts(tcp, udp, http, this.http.healthPort());
    }

    /** Copy with other listener ports, the health port's too; tests bind to 0 to get free ones. */
    public ServerSettings withPorts(int tcp, int udp, int http, int health) {
        return new ServerSettings(bindAddress, tcp, udp, http, tls, redisUrl, redisCommandTimeout, redisNamespace,
                embeddedRedisPort, instanceIdPrefix, apiToken, heartbeatTtl, heartbeatInterval, maxKnownInstances,
                deviceInfoTtl, janitor, commands, ops, imeiLuhnCheck, admission,
                refusalLogInterval, denySweepInterval, maxConnectionsPerAddress, maxNewConnectionsPerAddressPerSecond, decodeLimits, maxConnections, maxQueuedFrames,
                maxUdpInFlight, loginTimeout, readIdleTimeout, retention, dedupWindow, ackReplicas,
                ackReplicasTimeout, dedupPerDevice, transactionWrites,
                deadLetterMaxEntries,
                deadLetterMaxFrameBytes, shutdownGrace, drainWindow, ioThreads, hostile, this.http.withHealthPort(health));
    }
}
