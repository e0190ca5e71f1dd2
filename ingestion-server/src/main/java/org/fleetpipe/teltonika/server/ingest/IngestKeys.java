package org.fleetpipe.teltonika.server.ingest;

import java.util.List;
import org.fleetpipe.teltonika.payload.TelemetryKeys;
import org.fleetpipe.teltonika.payload.TelemetryLayout;
import org.fleetpipe.teltonika.registry.RedisKeys;

/**
 * The keys the telemetry write touches, with the namespace in front: the partitions' streams and
 * their layout key (the contract's, payload's {@link TelemetryLayout}), and a device's dedup sets, spelled
 * as its partition's stream is so one call of a partition touches one slot. A device's info hash is
 * the registry's.
 */
public final class IngestKeys {

    private final RedisKeys keys;
    private final TelemetryKeys contract;
    private final TelemetryLayout layout;

    /** {@code partitions}: TELEMETRY_PARTITIONS, 1 to {@link TelemetryLayout#MAX_PARTITIONS}. */
    public IngestKeys(RedisKeys keys, int partitions) {
        this.keys = keys;
        this.contract = new TelemetryKeys(keys.namespace());
        this.layout = contract.layout(partitions);
    }

    /** The unpartitioned layout. */
    public IngestKeys(RedisKeys keys) {
        this(keys, 1);
    }

    /** The registry's keys, in the same namespace. */
    public RedisKeys keys() {
        return keys;
    }

    public int partitions() {
        return layout.partitions();
    }

    /** A device's partition (TELEMETRY.md, "Partitions"). */
    public int partitionOf(String imei) {
        return layout.partitionOf(imei);
    }

    /** The telemetry stream of a single-partition layout: partition 0's. */
    public String telemetry() {
        return layout.stream(0);
    }

    /** Partition {@code p}'s stream: {@code telemetry} with one partition, else {@code telemetry:{p}}. */
    public String telemetry(int partition) {
        return layout.stream(partition);
    }

    /** The stream a device's records go to. */
    public String telemetryOf(String imei) {
        return layout.streamOf(imei);
    }

    /** Every partition's stream, partition 0 first. */
    public List<String> telemetryStreams() {
        return layout.streams();
    }

    /** The partition count the servers write with, for consumers to find: written at start when absent. */
    public String telemetryLayout() {
        return contract.partitions();
    }

    /**
     * String: the namespace, as written, that owns the partitioned keys' prefix. Namespaces {@code {a}:}
     * and {@code a:} share that prefix ({@code a:}), so the second to start must be refused.
     */
    public String partitionedKeysOwner() {
        String namespace = keys.namespace();
        return (partitions() == 1 ? namespace : TelemetryLayout.withoutHashTag(namespace)) + "telemetry:namespace";
    }

    /** Set of a device's most recent record identities, for deduplicating resent records. */
    public String dedupRecent(String imei) {
        return layout.partitionKey(keys.namespace() + "dedup:recent", partitionOf(imei)) + ":" + imei;
    }

    /** The generation of identities before {@link #dedupRecent}: that set, renamed when it filled up. */
    public String dedupPrevious(String imei) {
        return layout.partitionKey(keys.namespace() + "dedup:previous", partitionOf(imei)) + ":" + imei;
    }

    /** Hash about one device (the registry's): its record time is refreshed by the writes. */
    public String deviceInfo(String imei) {
        return keys.deviceInfo(imei);
    }
}
