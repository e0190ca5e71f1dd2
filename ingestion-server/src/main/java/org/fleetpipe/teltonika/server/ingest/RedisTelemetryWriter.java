package org.fleetpipe.teltonika.server.ingest;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.registry.LuaScript;
import org.fleetpipe.teltonika.registry.RedisKeys;

/**
 * Writes a packet's records as stream entries with one script call (one round trip per packet),
 * skipping records the device already sent within the dedup window.
 */
public final class RedisTelemetryWriter implements TelemetryWriter {

    private static final LuaScript APPEND = LuaScript.fromResource("ingest/append-packet.lua");

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final String maxLen;
    private final TelemetryEntryMapper mapper;
    private final String dedupWindowMillis;
    private final String dedupPerDevice;

    public RedisTelemetryWriter(RedisAsyncCommands<String, String> redis, RedisKeys keys, long streamMaxLen,
                                TelemetryEntryMapper mapper) {
        this(redis, keys, streamMaxLen, mapper, java.time.Duration.ZERO, 0);
    }

    /** With deduplication: records seen within {@code dedupWindow} (the last {@code perDevice} of a device) are not stored again. */
    public RedisTelemetryWriter(RedisAsyncCommands<String, String> redis, RedisKeys keys, long streamMaxLen,
                                TelemetryEntryMapper mapper, java.time.Duration dedupWindow, int perDevice) {
        this.redis = redis;
        this.keys = keys;
        this.maxLen = Long.toString(streamMaxLen);
        this.mapper = mapper;
        this.dedupWindowMillis = Long.toString(dedupWindow.toMillis());
        this.dedupPerDevice = Integer.toString(perDevice);
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis) {
        List<String> args = new ArrayList<>(5 + packet.size() * 34);
        args.add(maxLen);
        long newest = 0;
        for (AvlRecord record : packet.records()) {
            newest = Math.max(newest, record.timestamp());
        }
        args.add(Long.toString(newest));
        args.add(dedupWindowMillis);
        args.add(dedupPerDevice);
        args.add(Integer.toString(packet.size()));
        // Arrival order: receive time and position in the packet (both exact in a double's 53 bits).
        long order = receivedAtMillis * 256;
        for (AvlRecord record : packet.records()) {
            int countAt = args.size();
            args.add(null);
            args.add(RecordIdentity.of(packet.codec(), record));
            args.add(Long.toString(order++));
            int n = mapper.appendFields(imei, packet.codec(), record, receivedAtMillis, args);
            args.set(countAt, Integer.toString(n));
        }
        CompletionStage<Long> stored = APPEND.call(redis, ScriptOutputType.INTEGER,
                new String[] {keys.telemetry(), keys.deviceInfo(imei.value()), keys.dedup(imei.value())},
                args.toArray(String[]::new));
        return stored.thenApply(Long::intValue);
    }
}
