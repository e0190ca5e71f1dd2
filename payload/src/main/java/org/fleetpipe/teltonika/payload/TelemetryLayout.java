package org.fleetpipe.teltonika.payload;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * Where the servers write telemetry (TELEMETRY.md, "Partitions"): one stream, or with
 * {@code partitions} P &gt; 1 one stream per partition, {@code <stream>:{p}}, a device always in
 * partition CRC32(IMEI) mod P. Names only: reading the layout key is the consumer's job.
 *
 * @param stream     the stream of an unpartitioned layout, with the servers' namespace in front
 *                   ({@code telemetry}, {@code fleet-a:telemetry})
 * @param partitions P, 1 to {@link #MAX_PARTITIONS}
 */
public record TelemetryLayout(String stream, int partitions) {

    /** The servers' bound on TELEMETRY_PARTITIONS. */
    public static final int MAX_PARTITIONS = 1024;

    public TelemetryLayout {
        if (stream == null || stream.isEmpty()) {
            throw new IllegalArgumentException("the telemetry stream name must not be empty");
        }
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions must be 1.." + MAX_PARTITIONS + ", got " + partitions);
        }
    }

    /** The key the servers keep P in: {@code <stream>:partitions} ({@code telemetry:partitions}). */
    public static String partitionsKey(String stream) {
        return stream + ":partitions";
    }

    /** P as the layout key holds it; absent (null) is the unpartitioned layout, 1. */
    public static int parsePartitions(String stored) {
        if (stored == null) {
            return 1;
        }
        try {
            int partitions = Integer.parseInt(stored.trim());
            if (partitions >= 1 && partitions <= MAX_PARTITIONS) {
                return partitions;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("the layout key holds '" + stored + "', not a partition count 1.."
                + MAX_PARTITIONS);
    }

    /**
     * The stream of partition {@code p}: the plain stream when P = 1, else {@code <stream>:{p}}
     * with the braces of a namespace's hash tag taken out of {@code <stream>}.
     */
    public String stream(int partition) {
        return partitionKey(stream, partition);
    }

    /**
     * Another key of partition {@code p}, spelled as the partition's stream is: {@code name} when
     * P = 1, else {@code name:{p}} with the braces taken out of {@code name} (the servers' dedup
     * sets, the bridge's leases), so on a Redis Cluster it lives in its stream's slot.
     */
    public String partitionKey(String name, int partition) {
        if (partition < 0 || partition >= partitions) {
            throw new IndexOutOfBoundsException("partition " + partition + " of " + partitions);
        }
        // The braces make p the Redis Cluster hash tag: a partition's keys share a slot. A namespace's
        // own tag ({fleet}:, every other key's slot on a cluster) is left out: Redis hashes the first.
        return partitions == 1 ? name : withoutHashTag(name) + ":{" + partition + "}";
    }

    /** {@code name} without a namespace's hash tag braces: {@code {fleet}:x} is {@code fleet:x}. */
    public static String withoutHashTag(String name) {
        return name.replace("{", "").replace("}", "");
    }

    /** Every partition's stream, partition 0 first. */
    public List<String> streams() {
        List<String> streams = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            streams.add(stream(p));
        }
        return streams;
    }

    /**
     * The partition of a device: CRC32 of the IMEI's ASCII digits, unsigned, mod P. Stable across
     * releases and languages (consumers compute it too), so never change it.
     */
    public int partitionOf(String imei) {
        if (partitions == 1) {
            return 0;
        }
        CRC32 crc = new CRC32();
        crc.update(imei.getBytes(StandardCharsets.US_ASCII));
        return (int) (crc.getValue() % partitions);
    }

    /** The stream a device's records are in. */
    public String streamOf(String imei) {
        return stream(partitionOf(imei));
    }
}
