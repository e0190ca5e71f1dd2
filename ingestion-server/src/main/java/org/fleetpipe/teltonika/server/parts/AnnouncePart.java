package org.fleetpipe.teltonika.server.parts;

import org.fleetpipe.teltonika.server.lifecycle.InstanceRecovery;
import org.fleetpipe.teltonika.server.tcp.Transports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last part: once every listener is up, the heartbeat says where this instance listens and
 * starts its renewals (and the recovery from a lost heartbeat), and the log says ready.
 */
public final class AnnouncePart implements Part {

    private static final Logger LOG = LoggerFactory.getLogger(AnnouncePart.class);

    private final Shared shared;
    private final RedisPart redis;
    private final InstancePart instance;
    private final CommandPart commands;
    private final DeviceListenersPart devices;
    private final HttpPart http;
    private final Runnable onRemoteShutdown;

    public AnnouncePart(Shared shared, RedisPart redis, InstancePart instance, CommandPart commands,
                 DeviceListenersPart devices, HttpPart http, Runnable onRemoteShutdown) {
        this.shared = shared;
        this.redis = redis;
        this.instance = instance;
        this.commands = commands;
        this.devices = devices;
        this.http = http;
        this.onRemoteShutdown = onRemoteShutdown;
    }

    @Override
    public void start() {
        instance.identity().listeningOn(devices.tcpAddress().getPort(), http.apiAddress().getPort());
        instance.heartbeat().start(new InstanceRecovery(redis.connector().sync(), redis.keys(),
                shared.settings().instance().idPrefix(), instance.heartbeat(), instance.events(), shared.sessions(),
                instance.devices(), onRemoteShutdown, imei -> commands.dispatcher().wake(imei.value())));
        instance.heartbeat().renewSoon();
        LOG.info("ready: instance={} tcp={} tls={} udp={} http={} health={} redis={} transport={}",
                instance.identity().id(), devices.tcpAddress(), orOff(devices.tlsAddress()),
                orOff(devices.udpAddress()), http.apiAddress(), http.healthAddress(), redis.redactedUrl(),
                Transports.name());
    }

    private static Object orOff(Object address) {
        return address == null ? "off" : address;
    }
}
