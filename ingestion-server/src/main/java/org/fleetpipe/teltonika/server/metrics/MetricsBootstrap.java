package org.fleetpipe.teltonika.server.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyEventExecutorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.channel.EventLoopGroup;

/** The Prometheus registry with the JVM, Netty and Redis meters bound, and our naming applied. */
public final class MetricsBootstrap {

    private static final String LETTUCE = "lettuce.";

    private MetricsBootstrap() {
    }

    /**
     * A registry where Lettuce's command latency meters appear as {@code teltonika_redis_command_*}
     * (by command type; the connection's addresses are not tags).
     */
    public static PrometheusMeterRegistry registry() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                return id.getName().startsWith(LETTUCE)
                        ? id.withName("teltonika.redis." + id.getName().substring(LETTUCE.length())) : id;
            }
        });
        registry.config().meterFilter(MeterFilter.ignoreTags("local", "remote"));
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        // The allocator the channels really use (adaptive by default in Netty 4.2, not the pooled one).
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider provider) {
            new NettyAllocatorMetrics(provider).bindTo(registry);
        }
        return registry;
    }

    /** Pending tasks of each device event loop: a growing queue means the loops are saturated. */
    public static void eventLoops(PrometheusMeterRegistry registry, EventLoopGroup workers) {
        new NettyEventExecutorMetrics(workers).bindTo(registry);
    }
}
