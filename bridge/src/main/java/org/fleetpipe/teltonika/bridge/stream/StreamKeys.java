package org.fleetpipe.teltonika.bridge.stream;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.List;
import org.fleetpipe.teltonika.payload.TelemetryKeys;
import org.fleetpipe.teltonika.payload.TelemetryLayout;

/**
 * The Redis keys a bridge reads and writes, with the servers' {@code REDIS_NAMESPACE} in front;
 * the telemetry is the one stream or, partitioned, one stream per partition (TELEMETRY.md, "Partitions").
 */
public record StreamKeys(String namespace, String group, int partitions) {

    /** The unpartitioned layout: the one stream {@code telemetry}. */
    public StreamKeys(String namespace, String group) {
        this(namespace, group, 1);
    }

    /**
     * The keys of the layout the servers wrote: {@code partitions} when more than 0 (the operator
     * said so), else the layout key {@code telemetry:partitions}, 1 when absent.
     */
    public static StreamKeys read(RedisClusterCommands<String, String> redis, String namespace, String group,
                                  int partitions) {
        int count = partitions > 0 ? partitions
                : TelemetryLayout.parsePartitions(redis.get(new TelemetryKeys(namespace).partitions()));
        return new StreamKeys(namespace, group, count);
    }

    public TelemetryLayout layout() {
        return new TelemetryKeys(namespace).layout(partitions);
    }

    /** Every stream the group reads: {@code telemetry}, or {@code telemetry:{0}} .. {@code telemetry:{P-1}}. */
    public List<String> telemetryStreams() {
        return layout().streams();
    }

    /**
     * The lease of partition {@code p} for this group, spelled as the partition's stream is
     * (TelemetryLayout): {@code bridge:lease:<group>} when P = 1, else {@code bridge:lease:<group>:{p}}
     * with the namespace's braces taken out, so on a Redis Cluster the lease lives in its stream's slot.
     */
    public String lease(int partition) {
        return layout().partitionKey(namespace + "bridge:lease:" + group, partition);
    }

    /** The group's live replicas: a sorted set of consumer names scored by their last heartbeat (ms). */
    public String members() {
        return namespace + "bridge:members:" + group;
    }

    /** The bridge's dead-letter stream: one per group, so two sinks never mix their refusals. */
    public String deadLetters() {
        return namespace + "dlq:bridge:" + group;
    }

    /** The sink the group delivers to (SinkBinding). */
    public String binding() {
        return namespace + "bridge:binding:" + group;
    }

    /** IMEI to device model, written by the servers' device-model API. */
    public String deviceModels() {
        return new TelemetryKeys(namespace).deviceModels();
    }
}
