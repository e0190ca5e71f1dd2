package org.fleetpipe.teltonika.payload;

/**
 * The Redis keys of the stream contract, with the servers' {@code REDIS_NAMESPACE} in front: the
 * telemetry stream (partitioned by {@link TelemetryLayout}), its layout key and the device models
 * hash. The servers write them and every reader reads them under these names only.
 *
 * @param namespace the servers' REDIS_NAMESPACE as written ({@code ""}, {@code fleet-a:}, {@code {fleet}:})
 */
public record TelemetryKeys(String namespace) {

    /** The models hash's name after the namespace: a constant so help and log texts name it too. */
    public static final String DEVICE_MODELS = "devices:models";
    private static final String TELEMETRY = "telemetry";

    public TelemetryKeys {
        namespace = namespace == null ? "" : namespace;
    }

    /**
     * The keys of the deployment whose (unpartitioned) stream is {@code stream}: its namespace is what
     * stands before {@code telemetry}; a stream named otherwise has none.
     */
    public static TelemetryKeys ofStream(String stream) {
        return new TelemetryKeys(stream.endsWith(TELEMETRY) ? stream.substring(0, stream.length() - TELEMETRY.length())
                : "");
    }

    /** The stream of an unpartitioned layout, and the name the partitions' streams are made from. */
    public String telemetry() {
        return namespace + TELEMETRY;
    }

    /** The streams of a {@code partitions}-partition layout. */
    public TelemetryLayout layout(int partitions) {
        return new TelemetryLayout(telemetry(), partitions);
    }

    /** The string the servers keep the partition count in ({@code telemetry:partitions}). */
    public String partitions() {
        return TelemetryLayout.partitionsKey(telemetry());
    }

    /**
     * Hash IMEI to device model ({@code FMB920}): set through the servers' API or learned from a
     * getver reply; the payload names IO elements by it.
     */
    public String deviceModels() {
        return namespace + DEVICE_MODELS;
    }
}
