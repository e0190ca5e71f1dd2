package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.port;
import static org.fleetpipe.teltonika.server.config.SettingValues.refuse;
import static org.fleetpipe.teltonika.server.config.SettingValues.string;

import com.typesafe.config.Config;

/**
 * Where the devices connect: the address, the TCP and UDP ports, the optional TLS listener, and the
 * event loops that serve them.
 *
 * @param udpPort   0 = no UDP listener
 * @param ioThreads event loop threads for device connections; 0 means one per available core
 */
public record ListenerSettings(String bindAddress, int tcpPort, int udpPort, TlsSettings tls, int ioThreads) {

    static ListenerSettings from(Config c) {
        return new ListenerSettings(bindAddress(c, "bind-address"), port(c, "tcp-port"), port(c, "udp-port"),
                TlsSettings.from(c), intIn(c, "io-threads", 0, 1024));
    }

    /** The event loop threads to start for device connections. */
    public int ioThreadCount() {
        return ioThreads > 0 ? ioThreads : Runtime.getRuntime().availableProcessors();
    }

    ListenerSettings withPorts(int tcp, int udp) {
        return new ListenerSettings(bindAddress, tcp, udp, tls, ioThreads);
    }

    /** An IP address (or localhost) from {@code key}; refused otherwise. */
    static String bindAddress(Config c, String key) {
        String address = string(c, key).trim();
        if (!io.netty.util.NetUtil.isValidIpV4Address(address) && !io.netty.util.NetUtil.isValidIpV6Address(address)
                && !"localhost".equals(address)) {
            throw refuse(c, key, "not an IP address");
        }
        return address;
    }
}
