package org.fleetpipe.teltonika.server.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AttributeKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The connections open now on one HTTP listener, capped in all and per source address: one past
 * the cap is answered (503 in all, 429 for its address) and closed, so neither a crowd nor one host
 * holds every slot. On the health port one past a cap first takes the slot of the connection that
 * has waited longest for a request (from its own address when its address is at its cap): sockets
 * held idle give way to a probe, which sends its request at once. Also what the connections hold in
 * answers not yet taken by the client, for the metric that shows the write back-pressure working.
 */
@Sharable
public final class HttpConnections extends ChannelInboundHandlerAdapter {

    private static final AttributeKey<InetAddress> COUNTED_AS = AttributeKey.valueOf(HttpConnections.class, "address");

    private final int max;
    private final String maxSetting;
    private final int maxPerAddress;
    private final String maxPerAddressSetting;
    private final AtomicInteger count = new AtomicInteger();
    private final Map<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
    private final Set<Channel> open = ConcurrentHashMap.newKeySet();
    private final Counter refused;
    private final Counter refusedPerAddress;
    /** Null: a connection past a cap is refused; else idle connections make room and are counted here. */
    private final Counter evicted;

    private HttpConnections(int max, String maxSetting, int maxPerAddress, String maxPerAddressSetting,
                            Counter refused, Counter refusedPerAddress, Counter evicted) {
        this.max = max;
        this.maxSetting = maxSetting;
        this.maxPerAddress = maxPerAddress;
        this.maxPerAddressSetting = maxPerAddressSetting;
        this.refused = refused;
        this.refusedPerAddress = refusedPerAddress;
        this.evicted = evicted;
    }

    /** The API port's connections without a per-address cap. */
    public HttpConnections(int max, MeterRegistry registry) {
        this(max, 0, registry);
    }

    /**
     * The API port's connections.
     *
     * @param maxPerAddress 0 = no per-address cap
     * @param registry      where {@code teltonika_http_*} go; null for none
     */
    public HttpConnections(int max, int maxPerAddress, MeterRegistry registry) {
        this(max, "HTTP_MAX_CONNECTIONS", maxPerAddress, "HTTP_MAX_CONNECTIONS_PER_ADDRESS",
                registry == null ? null : Counter.builder("teltonika.http.connections.refused")
                        .description("HTTP connections closed at once: over HTTP_MAX_CONNECTIONS").register(registry),
                registry == null ? null : Counter.builder("teltonika.http.connections.address.refused")
                        .description("HTTP connections closed at once: over HTTP_MAX_CONNECTIONS_PER_ADDRESS")
                        .register(registry), null);
        if (registry != null) {
            Gauge.builder("teltonika.http.connections.active", this, HttpConnections::count)
                    .description("HTTP connections open now (capped by HTTP_MAX_CONNECTIONS)").register(registry);
            Gauge.builder("teltonika.http.pending.write.bytes", this, HttpConnections::pendingWriteBytes)
                    .baseUnit("bytes")
                    .description("answers written to HTTP connections that their clients have not taken yet")
                    .register(registry);
        }
    }

    /**
     * The health port's connections: a small cap of their own and one per address, where idle
     * connections give way to new ones (the kubelet probes from the node's address, on a new
     * connection each time, so a host's idle sockets must not lock out the probes from that host).
     *
     * @param maxPerAddress 0 = no per-address cap
     * @param registry      where {@code teltonika_health_*} go; null for none
     */
    public static HttpConnections health(int max, int maxPerAddress, MeterRegistry registry) {
        HttpConnections connections = new HttpConnections(max, "HEALTH_MAX_CONNECTIONS", maxPerAddress,
                "HEALTH_MAX_CONNECTIONS_PER_ADDRESS",
                registry == null ? null : Counter.builder("teltonika.health.connections.refused")
                        .description("health port connections closed at once: over HEALTH_MAX_CONNECTIONS, none idle")
                        .register(registry),
                registry == null ? null : Counter.builder("teltonika.health.connections.address.refused")
                        .description("health port connections closed at once: over"
                                + " HEALTH_MAX_CONNECTIONS_PER_ADDRESS, none of that address idle")
                        .register(registry),
                Counter.builder("teltonika.health.connections.evicted")
                        .description("idle health port connections closed to make room for a new one past"
                                + " HEALTH_MAX_CONNECTIONS or HEALTH_MAX_CONNECTIONS_PER_ADDRESS")
                        .register(registry == null ? new SimpleMeterRegistry() : registry));
        if (registry != null) {
            Gauge.builder("teltonika.health.connections.active", connections, HttpConnections::count)
                    .description("health port connections open now (capped by HEALTH_MAX_CONNECTIONS)")
                    .register(registry);
        }
        return connections;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        InetAddress address = ctx.channel().remoteAddress() instanceof InetSocketAddress socket
                ? socket.getAddress() : null;
        boolean perAddressCap = maxPerAddress > 0 && address != null;
        if (perAddressCap && !takeAddressSlot(address) && !(evictIdlest(address) && takeAddressSlot(address))) {
            if (refusedPerAddress != null) {
                refusedPerAddress.increment();
            }
            HttpResponses.error(ctx, false, HttpResponseStatus.TOO_MANY_REQUESTS, "too-many-connections",
                    "more than " + maxPerAddress + " HTTP connections from one address (" + maxPerAddressSetting + ")");
            return;
        }
        if (!takeSlot() && !(evictIdlest(null) && takeSlot())) {
            if (perAddressCap) {
                releaseAddressSlot(address);
            }
            if (refused != null) {
                refused.increment();
            }
            HttpResponses.error(ctx, false, HttpResponseStatus.SERVICE_UNAVAILABLE, "too-many-connections",
                    "more than " + max + " HTTP connections (" + maxSetting + ")");
            return;
        }
        if (perAddressCap) {
            ctx.channel().attr(COUNTED_AS).set(address);
        }
        open.add(ctx.channel());
        ctx.fireChannelActive();
    }

    private boolean takeSlot() {
        if (count.incrementAndGet() > max) {
            count.decrementAndGet();
            return false;
        }
        return true;
    }

    /**
     * Where idle connections give way: closes the one that has waited longest for a request (from
     * {@code address}, or from anywhere when null) and frees its slots now, as its close completes
     * later. False when there is none, or on a listener where connections do not give way.
     */
    private boolean evictIdlest(InetAddress address) {
        if (evicted == null) {
            return false;
        }
        Channel idlest = null;
        long idlestSince = Long.MAX_VALUE;
        // Both run on the listener's one event loop, so the connections' request state is current;
        // at most HEALTH_MAX_CONNECTIONS to look at.
        for (Channel channel : open) {
            if (address != null && !address.equals(channel.attr(COUNTED_AS).get())) {
                continue;
            }
            OptionalLong since = HttpRequestSequencer.idleSince(channel);
            if (since.isPresent() && since.getAsLong() < idlestSince) {
                idlest = channel;
                idlestSince = since.getAsLong();
            }
        }
        if (idlest == null || !free(idlest)) {
            return false;
        }
        evicted.increment();
        idlest.close();
        return true;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        free(ctx.channel());
        ctx.fireChannelInactive();
    }

    /** Gives back {@code channel}'s slots, once; true when it held them. */
    private boolean free(Channel channel) {
        if (!open.remove(channel)) {
            return false;
        }
        count.decrementAndGet();
        InetAddress address = channel.attr(COUNTED_AS).getAndSet(null);
        if (address != null) {
            releaseAddressSlot(address);
        }
        return true;
    }

    private boolean takeAddressSlot(InetAddress address) {
        boolean[] taken = {false};
        perAddress.compute(address, (a, n) -> {
            int now = n == null ? 0 : n;
            if (now >= maxPerAddress) {
                return n;
            }
            taken[0] = true;
            return now + 1;
        });
        return taken[0];
    }

    private void releaseAddressSlot(InetAddress address) {
        // Removed at zero, so the map holds only the addresses connected now.
        perAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }

    public int count() {
        return count.get();
    }

    /** Bytes of answers queued in the open connections, not yet written to their sockets. */
    public long pendingWriteBytes() {
        long total = 0;
        for (Channel channel : open) {
            ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
            total += buffer == null ? 0 : buffer.totalPendingWriteBytes();
        }
        return total;
    }
}
