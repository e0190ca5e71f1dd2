package org.fleetpipe.teltonika.server.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The HTTP connections open now, capped: one past the cap is answered 503 and closed. Also what
 * they hold in answers not yet taken by the client, for the metric that shows the write
 * back-pressure working.
 */
@Sharable
public final class HttpConnections extends ChannelInboundHandlerAdapter {

    private final int max;
    private final AtomicInteger count = new AtomicInteger();
    private final Set<Channel> open = ConcurrentHashMap.newKeySet();
    private final Counter refused;

    /** @param registry where {@code teltonika_http_*} go; null for none */
    public HttpConnections(int max, MeterRegistry registry) {
        this.max = max;
        if (registry == null) {
            refused = null;
            return;
        }
        Gauge.builder("teltonika.http.connections.active", this, HttpConnections::count)
                .description("HTTP connections open now (capped by HTTP_MAX_CONNECTIONS)").register(registry);
        Gauge.builder("teltonika.http.pending.write.bytes", this, HttpConnections::pendingWriteBytes)
                .baseUnit("bytes")
                .description("answers written to HTTP connections that their clients have not taken yet")
                .register(registry);
        refused = Counter.builder("teltonika.http.connections.refused")
                .description("HTTP connections closed at once: over HTTP_MAX_CONNECTIONS").register(registry);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (count.incrementAndGet() > max) {
            count.decrementAndGet();
            if (refused != null) {
                refused.increment();
            }
            HttpResponses.error(ctx, false, HttpResponseStatus.SERVICE_UNAVAILABLE, "too-many-connections",
                    "more than " + max + " HTTP connections (HTTP_MAX_CONNECTIONS)");
            return;
        }
        open.add(ctx.channel());
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (open.remove(ctx.channel())) {
            count.decrementAndGet();
        }
        ctx.fireChannelInactive();
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
