package org.fleetpipe.teltonika.registry;

/** The only place Redis key names are spelled; every key carries the optional namespace prefix. */
public final class RedisKeys {

    private final String prefix;

    public RedisKeys(String namespace) {
        this.prefix = namespace == null ? "" : namespace;
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

    public String telemetry() {
        return prefix + "telemetry";
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
        return prefix + "dedup:recent:" + imei;
    }

    /** The generation of identities before {@link #dedupRecent}: that set, renamed when it filled up. */
    public String dedupPrevious(String imei) {
        return prefix + "dedup:previous:" + imei;
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
