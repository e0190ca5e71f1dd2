package org.fleetpipe.teltonika.registry;

/**
 * The registry's Redis keys (instances, their heartbeats and events, who holds which device), and
 * the namespace prefix every key of the deployment carries. Each other area spells its own keys
 * beside its code from {@link #namespace()}; the stream contract's are payload's {@code TelemetryKeys}.
 */
public final class RedisKeys {

    private final String prefix;

    public RedisKeys(String namespace) {
        this.prefix = namespace == null ? "" : namespace;
    }

    /** REDIS_NAMESPACE as written ({@code ""}, {@code fleet-a:}, {@code {fleet}:}): every key's prefix. */
    public String namespace() {
        return prefix;
    }

    /** Hash IMEI to the id of the instance the device is connected to. */
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
}
