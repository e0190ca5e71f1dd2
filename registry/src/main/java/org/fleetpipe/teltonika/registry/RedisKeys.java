package org.fleetpipe.teltonika.registry;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The only place Redis key names are spelled; every key carries the optional namespace prefix.
 * With more than one telemetry partition, a device's telemetry keys (its stream and dedup sets)
 * carry its partition as a Redis Cluster hash tag, {@code {p}}, so one script call or MULTI block
 * of one partition touches one slot (TELEMETRY.md, "Partitions"). Their namespace prefix is
 * written without braces: on a cluster the namespace holds the hash tag of every other key, and
 * Redis hashes a key's first tag only.
 */
public final class RedisKeys {

    /** Most partitions: a stream key each, read together by every consumer. */
    public static final int MAX_PARTITIONS = 1024;

    private final String prefix;
    /** The prefix of partitioned keys: the namespace without its hash tag's braces. */
    private final String partitionPrefix;
    private final int partitions;

    public RedisKeys(String namespace) {
        this(namespace, 1);
    }

    /** {@code partitions}: TELEMETRY_PARTITIONS, 1 to {@link #MAX_PARTITIONS}. */
    public RedisKeys(String namespace, int partitions) {
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions must be 1 to " + MAX_PARTITIONS + ": " + partitions);
        }
        this.prefix = namespace == null ? "" : namespace;
        this.partitionPrefix = partitions == 1 ? prefix : prefix.replace("{", "").replace("}", "");
        this.partitions = partitions;
    }

    /** How many partitions the telemetry is split into. */
    public int partitions() {
        return partitions;
    }

    /**
     * A device's partition: the CRC-32 of its IMEI's ASCII digits, unsigned, modulo the partition
     * count. Stable across releases and languages (consumers may compute it), so never change it.
     */
    public int partitionOf(String imei) {
        if (partitions == 1) {
            return 0;
        }
        CRC32 crc = new CRC32();
        crc.update(imei.getBytes(StandardCharsets.US_ASCII));
        return (int) (crc.getValue() % partitions);
    }

    public String namespace() {
        return prefix;
    }

    public String registry() {
        return prefix + "connections:registry";
    }

    public String heartbeat(String instanceId) {
        return prefix + "instance:heartbeat:" + instanceId;
    }

    /**
     * An operator's order to one instance to drain and exit. A missing heartbeat is read as one
     * only with {@link HeartbeatDeleteMeans#SHUTDOWN} (a restore or an eviction loses keys, too).
     */
    public String shutdownMarker(String instanceId) {
        return prefix + "instance:shutdown:" + instanceId;
    }

    /** Sorted set of known instance ids (score = start time), bounded; the janitor walks it. */
    public String instanceIds() {
        return prefix + "instance:ids";
    }

    /** Pub/sub channel on which an instance hears that another one took over one of its devices. */
    public String instanceEvents(String instanceId) {
        return instanceEventsPrefix() + instanceId;
    }

    public String instanceEventsPrefix() {
        return prefix + "instance:events:";
    }

    /** Hash about one device: owning instance, connected since, remote address, last record time. */
    public String deviceInfo(String imei) {
        return prefix + "device:info:" + imei;
    }

    public String instanceSeq() {
        return prefix + "instance:seq";
    }

    /** The telemetry stream of a single-partition layout: partition 0's. */
    public String telemetry() {
        return telemetry(0);
    }

    /** Partition {@code p}'s stream: {@code telemetry} with one partition, else {@code telemetry:{p}}. */
    public String telemetry(int partition) {
        return partitions == 1 ? prefix + "telemetry" : partitionPrefix + "telemetry:" + tag(partition);
    }

    /** The stream a device's records go to. */
    public String telemetryOf(String imei) {
        return telemetry(partitionOf(imei));
    }

    /** Every partition's stream, partition 0 first. */
    public List<String> telemetryStreams() {
        List<String> streams = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
            streams.add(telemetry(p));
        }
        return streams;
    }

    /**
     * The partition count the servers write with, for consumers to discover: a decimal string,
     * written at start when absent; a server with another count refuses to start.
     */
    public String telemetryLayout() {
        return prefix + "telemetry:partitions";
    }

    /**
     * String: the namespace, as written, that owns the partitioned keys' prefix. Namespaces {@code {a}:}
     * and {@code a:} share that prefix ({@code a:}), so the second to start must be refused.
     */
    public String partitionedKeysOwner() {
        return partitionPrefix + "telemetry:namespace";
    }

    /** Whether the partitioned keys carry another prefix than the others (a namespace with a hash tag). */
    public boolean partitionPrefixDiffers() {
        return !partitionPrefix.equals(prefix);
    }

    /** The hash tag of a partition's keys: {@code {p}}; empty with one partition (names as before partitions). */
    private String tag(int partition) {
        if (partition < 0 || partition >= partitions) {
            throw new IllegalArgumentException("no partition " + partition + " of " + partitions);
        }
        return "{" + partition + "}";
    }

    /** The hash tag and separator a device's telemetry keys carry after their kind; empty with one partition. */
    private String deviceTag(String imei) {
        return partitions == 1 ? "" : tag(partitionOf(imei)) + ":";
    }

    public String frameDeadLetters() {
        return prefix + "dlq:frames";
    }

    public String commandDeadLetters() {
        return prefix + "dlq:commands";
    }

    /** Hash of one command: text, codec, status, timestamps, history, reply. */
    public String command(String id) {
        return commandPrefix() + id;
    }

    public String commandPrefix() {
        return prefix + "command:";
    }

    /** List of command ids waiting for one device, oldest first. */
    public String commandQueue(String imei) {
        return commandQueuePrefix() + imei;
    }

    public String commandQueuePrefix() {
        return prefix + "commands:queue:";
    }

    /**
     * Sorted set of one device's recent command ids (score = when created): queued, in flight and
     * finished alike, the newest kept; expires with its newest command.
     */
    public String deviceCommands(String imei) {
        return prefix + "commands:device:" + imei;
    }

    /** Sorted set of IMEIs with queued commands (score = when the oldest was queued). */
    public String commandsQueued() {
        return prefix + "commands:queued";
    }

    /** Hash IMEI to command id: the commands one instance sent and awaits the reply of. */
    public String commandsInFlight(String instanceId) {
        return prefix + "commands:inflight:" + instanceId;
    }

    /** Set of instance ids that have commands in flight; the janitor walks it. */
    public String commandsInFlightInstances() {
        return prefix + "commands:inflight-instances";
    }

    /** Hash of the queues' health (one JSON field per queue, computedAt, instance), for tools without HTTP. */
    public String healthQueues() {
        return prefix + "health:queues";
    }

    /** Stream of Codec 13 messages devices sent on their own. */
    public String deviceMessages() {
        return prefix + "device:messages";
    }

    /** Set of a device's most recent record identities, for deduplicating resent records. */
    public String dedupRecent(String imei) {
        return partitionPrefix + "dedup:recent:" + deviceTag(imei) + imei;
    }

    /** The generation of identities before {@link #dedupRecent}: that set, renamed when it filled up. */
    public String dedupPrevious(String imei) {
        return partitionPrefix + "dedup:previous:" + deviceTag(imei) + imei;
    }

    public String allowedDevices() {
        return prefix + "devices:allowed";
    }

    public String deniedDevices() {
        return prefix + "devices:denied";
    }

    /** Hash IMEI to device model ({@code FMB920}): set through the API or learned from a getver reply. */
    public String deviceModels() {
        return prefix + "devices:models";
    }

    /** Hash of one device's active capture (end time, bytes written); it expires at the end. */
    public String captureActive(String imei) {
        return prefix + "capture:active:" + imei;
    }

    /** Stream of one device's captured frames, both ways; it expires a retention after the capture ends. */
    public String capture(String imei) {
        return prefix + "capture:" + imei;
    }

    /** Sorted set of the IMEIs with an active capture (score = its end), bounded by MAX_CAPTURES. */
    public String capturesActive() {
        return prefix + "captures:active";
    }
}
