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

/** Writes a packet's records as stream entries with one script call (one round trip per packet). */
public final class RedisTelemetryWriter implements TelemetryWriter {

    private static final LuaScript APPEND = LuaScript.fromResource("ingest/append-packet.lua");

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final String maxLen;
    private final TelemetryEntryMapper mapper;

    public RedisTelemetryWriter(RedisAsyncCommands<String, String> redis, RedisKeys keys, long streamMaxLen,
                                TelemetryEntryMapper mapper) {
        this.redis = redis;
        this.keys = keys;
        this.maxLen = Long.toString(streamMaxLen);
        this.mapper = mapper;
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis) {
        List<String> args = new ArrayList<>(3 + packet.size() * 32);
        args.add(maxLen);
        long newest = 0;
        for (AvlRecord record : packet.records()) {
            newest = Math.max(newest, record.timestamp());
        }
        args.add(Long.toString(newest));
        args.add(Integer.toString(packet.size()));
        for (AvlRecord record : packet.records()) {
            int countAt = args.size();
            args.add(null);
            int n = mapper.appendFields(imei, packet.codec(), record, receivedAtMillis, args);
            args.set(countAt, Integer.toString(n));
        }
        CompletionStage<Long> stored = APPEND.call(redis, ScriptOutputType.INTEGER,
                new String[] {keys.telemetry(), keys.deviceInfo(imei.value())}, args.toArray(String[]::new));
        return stored.thenApply(Long::intValue);
    }
}
