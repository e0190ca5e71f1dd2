package org.fleetpipe.teltonika.bridge;

import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.payload.TelemetryLayout;

/**
 * Writes stream entries shaped as the servers write them (TELEMETRY.md, schema 2), each device's
 * to its partition's stream when the layout has partitions.
 */
final class TelemetryEntries {

    private final RedisClusterCommands<String, String> redis;
    private final TelemetryLayout layout;

    TelemetryEntries(RedisClusterCommands<String, String> redis, String stream) {
        this(redis, new TelemetryLayout(stream, 1));
    }

    TelemetryEntries(RedisClusterCommands<String, String> redis, TelemetryLayout layout) {
        this.redis = redis;
        this.layout = layout;
    }

    static String imei(int device) {
        return String.format("35209308%07d", device);
    }

    /** Record number {@code seq} of a device: its {@code ts} grows with {@code seq}. */
    static Map<String, String> record(int device, long seq) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("schema", "2");
        fields.put("imei", imei(device));
        fields.put("codec", "8E");
        fields.put("ts", Long.toString(1_700_000_000_000L + seq * 1000));
        fields.put("rx", Long.toString(1_700_000_000_500L + seq * 1000));
        fields.put("priority", "0");
        fields.put("lat", "54.6872383");
        fields.put("lon", "25.28");
        fields.put("alt", "120");
        fields.put("angle", "270");
        fields.put("sat", "9");
        fields.put("speed", "54");
        fields.put("event", "0");
        fields.put("io", "{\"21\":3,\"66\":24079}");
        fields.put("valid", "1");
        fields.put("instance", "ingest-test-1");
        return fields;
    }

    /** Record number {@code seq} of a device with an io object of about {@code ioChars} characters. */
    String addLarge(int device, long seq, int ioChars) {
        StringBuilder io = new StringBuilder("{");
        for (int id = 1; io.length() < ioChars; id++) {
            io.append(id == 1 ? "" : ",").append('"').append(id).append("\":").append(id);
        }
        Map<String, String> fields = record(device, seq);
        fields.put("io", io.append('}').toString());
        return redis.xadd(layout.streamOf(imei(device)), fields);
    }

    String add(int device, long seq) {
        return redis.xadd(layout.streamOf(imei(device)), record(device, seq));
    }

    /** {@code perDevice} records for each of {@code devices} devices, interleaved as a fleet sends them. */
    void addFleet(int devices, int perDevice, int firstSeq) {
        for (int seq = firstSeq; seq < firstSeq + perDevice; seq++) {
            for (int device = 0; device < devices; device++) {
                add(device, seq);
            }
        }
    }

    /** As {@link #addFleet}, paced at about {@code perSecond} records a second, a round of every device at a time. */
    void addSteadily(int devices, int rounds, int perSecond) throws InterruptedException {
        long pauseNanos = TimeUnit.SECONDS.toNanos(1) * devices / perSecond;
        for (int seq = 0; seq < rounds; seq++) {
            long next = System.nanoTime() + pauseNanos;
            for (int device = 0; device < devices; device++) {
                add(device, seq);
            }
            TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime()));
        }
    }
}
