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
    private final String[] keys;
    private final String maxLen;
    private final TelemetryEntryMapper mapper;

    public RedisTelemetryWriter(RedisAsyncCommands<String, String> redis, RedisKeys keys, long streamMaxLen,
                                TelemetryEntryMapper mapper) {
        this.redis = redis;
        this.keys = new String[] {keys.telemetry()};
        this.maxLen = Long.toString(streamMaxLen);
        this.mapper = mapper;
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis) {
        List<String> args = new ArrayList<>(2 + packet.size() * 32);
        args.add(maxLen);
        args.add(Integer.toString(packet.size()));
        for (AvlRecord record : packet.records()) {
            int countAt = args.size();
            args.add(null);
            int n = mapper.appendFields(imei, packet.codec(), record, receivedAtMillis, args);
            args.set(countAt, Integer.toString(n));
        }
        CompletionStage<Long> stored = APPEND.call(redis, ScriptOutputType.INTEGER, keys, args.toArray(String[]::new));
        return stored.thenApply(Long::intValue);
    }
}
