package org.fleetpipe.teltonika.server.ingest;

import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.registry.LuaScript;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.registry.RespArguments;

/**
 * Writes a packet's records as stream entries with one script call (one round trip per packet),
 * skipping records the device already sent within the dedup window. The call's arguments are
 * encoded here, on the connection's event loop, not on Lettuce's single I/O thread.
 */
public final class RedisTelemetryWriter implements TelemetryWriter {

    private static final LuaScript APPEND = LuaScript.fromResource("ingest/append-packet.lua");

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final byte[] maxLen;
    private final TelemetryEntryMapper mapper;
    private final boolean dedup;
    private final byte[] dedupWindowMillis;
    private final byte[] dedupPerDevice;

    public RedisTelemetryWriter(RedisAsyncCommands<String, String> redis, RedisKeys keys, long streamMaxLen,
                                TelemetryEntryMapper mapper) {
        this(redis, keys, streamMaxLen, mapper, java.time.Duration.ZERO, 0);
    }

    /** With deduplication: records seen within {@code dedupWindow} (the last {@code perDevice} of a device) are not stored again. */
    public RedisTelemetryWriter(RedisAsyncCommands<String, String> redis, RedisKeys keys, long streamMaxLen,
                                TelemetryEntryMapper mapper, java.time.Duration dedupWindow, int perDevice) {
        this.redis = redis;
        this.keys = keys;
        this.maxLen = RespArguments.preEncoded(Long.toString(streamMaxLen));
        this.mapper = mapper;
        this.dedup = dedupWindow.toMillis() > 0;
        this.dedupWindowMillis = RespArguments.preEncoded(Long.toString(Math.max(0, dedupWindow.toMillis())));
        this.dedupPerDevice = RespArguments.preEncoded(Integer.toString(perDevice));
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis) {
        return APPEND.callInteger(redis, arguments(imei, packet, receivedAtMillis)).thenApply(Long::intValue);
    }

    /** The script's keys and arguments (layout in append-packet.lua). */
    RespArguments arguments(Imei imei, AvlPacket packet, long receivedAtMillis) {
        List<AvlRecord> records = packet.records();
        RespArguments args = new RespArguments(256 + records.size() * 320);
        args.number(3).text(keys.telemetry()).text(keys.deviceInfo(imei.value())).text(keys.dedup(imei.value()));
        long newest = 0;
        for (AvlRecord record : records) {
            newest = Math.max(newest, record.timestamp());
        }
        args.encoded(maxLen).number(newest).encoded(dedupWindowMillis).encoded(dedupPerDevice).number(records.size());
        args.number(TelemetryEntryMapper.fieldNames(packet.codec()).size());
        mapper.appendNames(packet.codec(), args);
        if (dedup) {
            // Arrival order: receive time and position in the packet (both exact in a double's 53 bits).
            long order = receivedAtMillis * 256;
            for (AvlRecord record : records) {
                args.number(order++).hex64(RecordIdentity.of(packet.codec(), record));
            }
        }
        for (AvlRecord record : records) {
            mapper.appendValues(imei, packet.codec(), record, receivedAtMillis, args);
        }
        return args;
    }
}
