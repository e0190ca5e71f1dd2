package org.fleetpipe.teltonika.server.ingest;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.atomic.LongAdder;
import org.fleetpipe.teltonika.redis.RespArguments;

/**
 * What every event loop's batch of one {@link RedisTelemetryWriter} shares: its Redis connections,
 * keys and entry mapper, its settings encoded once as the calls send them, and its counters.
 */
final class WriterParts {

    final RedisClusterAsyncCommands<String, String> redis;
    /** Device info refreshes sent apart (a cluster): the cluster connection, which reaches their slot. */
    final RedisClusterAsyncCommands<String, String> infoRedis;
    final IngestKeys keys;
    final TelemetryEntryMapper mapper;
    final boolean dedup;
    final byte[] dedupWindowMillis;
    final byte[] dedupPerDevice;
    final int dedupCap;
    final byte[] deviceInfoTtlMillis;
    final String deviceInfoTtlText;
    final byte[] streamKey;
    /** How long a block that is not full may wait for more packets, from its first one. */
    final long blockLingerNanos;
    /** Script calls per partition (a cluster with several partitions), else one call for any devices. */
    final boolean callPerPartition;
    final LongAdder scriptPackets = new LongAdder();
    final LongAdder blockPackets = new LongAdder();
    final LongAdder blocks = new LongAdder();

    WriterParts(RedisClusterAsyncCommands<String, String> redis, RedisClusterAsyncCommands<String, String> infoRedis,
                IngestKeys keys, TelemetryEntryMapper mapper, TelemetryWriteSettings settings, boolean cluster) {
        this.redis = redis;
        this.infoRedis = infoRedis;
        this.keys = keys;
        this.mapper = mapper;
        this.callPerPartition = cluster && keys.partitions() > 1;
        this.streamKey = RespArguments.preEncoded(keys.telemetry());
        this.dedupCap = settings.dedupPerDevice();
        this.dedup = settings.dedupWindow().toMillis() > 0;
        this.dedupWindowMillis = RespArguments.preEncoded(
                Long.toString(Math.max(0, settings.dedupWindow().toMillis())));
        this.dedupPerDevice = RespArguments.preEncoded(Integer.toString(settings.dedupPerDevice()));
        this.deviceInfoTtlText = Long.toString(settings.deviceInfoTtl().toMillis());
        this.deviceInfoTtlMillis = RespArguments.preEncoded(deviceInfoTtlText);
        this.blockLingerNanos = settings.blockLinger().toNanos();
    }
}
