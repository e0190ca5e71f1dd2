package org.fleetpipe.teltonika.server.ingest;

import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.CodecId;
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
        CodecId codec = packet.codec();
        List<AvlRecord> all = packet.records();
        long[] ids = dedup ? identities(codec, all) : null;
        boolean[] repeat = dedup ? repeats(ids) : new boolean[all.size()];
        int count = 0;
        long newest = 0;
        for (int i = 0; i < all.size(); i++) {
            if (!repeat[i]) {
                count++;
                newest = Math.max(newest, all.get(i).timestamp());
            }
        }
        RespArguments args = new RespArguments(256 + count * 240);
        args.number(4).text(keys.telemetry()).text(keys.deviceInfo(imei.value()))
                .text(keys.dedupRecent(imei.value())).text(keys.dedupPrevious(imei.value()));
        args.encoded(maxLen).number(newest).encoded(dedupWindowMillis).encoded(dedupPerDevice).number(count);
        args.number(TelemetryEntryMapper.fieldNames(codec).size());
        mapper.appendValuePattern(codec, args);
        mapper.appendNames(codec, args);
        mapper.appendPacketValues(imei, codec, receivedAtMillis, args);
        if (dedup) {
            for (int i = 0; i < all.size(); i++) {
                if (!repeat[i]) {
                    args.number(ids[i]);
                }
            }
        }
        for (int i = 0; i < all.size(); i++) {
            if (!repeat[i]) {
                mapper.appendRecordValues(codec, all.get(i), args);
            }
        }
        return args;
    }

    private static long[] identities(CodecId codec, List<AvlRecord> records) {
        long[] ids = new long[records.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = RecordIdentity.of(codec, records.get(i));
        }
        return ids;
    }

    /**
     * Which records repeat an earlier one of the same packet: left out, so the script gets distinct
     * identities and stores such a record once, as it would across packets.
     */
    static boolean[] repeats(long[] ids) {
        boolean[] repeat = new boolean[ids.length];
        for (int i = 1; i < ids.length; i++) {
            // Quadratic, but a packet holds at most 255 records and the usual one about ten.
            for (int j = 0; j < i && !repeat[i]; j++) {
                repeat[i] = ids[j] == ids[i];
            }
        }
        return repeat;
    }
}
