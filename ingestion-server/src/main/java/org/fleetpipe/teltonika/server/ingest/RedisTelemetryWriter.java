package org.fleetpipe.teltonika.server.ingest;

import io.lettuce.core.api.async.RedisAsyncCommands;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.internal.ThreadExecutorMap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.registry.LuaScript;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.registry.RespArguments;

/**
 * Writes packets' records as stream entries with one script call per batch of packets, skipping
 * records a device already sent within the dedup window. The packets that reach one event loop
 * together (read in the same round of its I/O) go in one call, sent as soon as that round ends:
 * no waiting, only fewer and larger calls when the load is high, which is what Redis, the narrowest
 * part of the pipeline, spends less per record on. The arguments are encoded on the event loop,
 * not on Lettuce's single I/O thread.
 */
public final class RedisTelemetryWriter implements TelemetryWriter {

    private static final LuaScript APPEND = LuaScript.fromResource("ingest/append-packets.lua");
    /** Bounds one script run (about 4 us of Redis time per record), so other clients wait little. */
    static final int MAX_BATCH_PACKETS = 16;
    static final int MAX_BATCH_RECORDS = 256;
    /** Per-packet flags of append-packets.lua: read the dedup sets first; refresh the device info hash. */
    static final int CHECK_DEDUP = 1;
    static final int REFRESH_INFO = 2;

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final TelemetryEntryMapper mapper;
    private final boolean dedup;
    private final byte[] dedupWindowMillis;
    private final byte[] dedupPerDevice;
    private final byte[] deviceInfoTtlMillis;
    private final FastThreadLocal<Batch> batches = new FastThreadLocal<>() {
        @Override
        protected Batch initialValue() {
            return new Batch();
        }
    };

    /** Records seen within the dedup window (the last {@code dedupPerDevice} of a device) are not stored again. */
    public RedisTelemetryWriter(RedisAsyncCommands<String, String> redis, RedisKeys keys, TelemetryEntryMapper mapper,
                                TelemetryWriteSettings settings) {
        this.redis = redis;
        this.keys = keys;
        this.mapper = mapper;
        this.dedup = settings.dedupWindow().toMillis() > 0;
        this.dedupWindowMillis = RespArguments.preEncoded(Long.toString(Math.max(0, settings.dedupWindow().toMillis())));
        this.dedupPerDevice = RespArguments.preEncoded(Integer.toString(settings.dedupPerDevice()));
        this.deviceInfoTtlMillis = RespArguments.preEncoded(Long.toString(settings.deviceInfoTtl().toMillis()));
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacket packet, long receivedAtMillis, ResendGuard connection) {
        Pending pending = new Pending(imei, packet, receivedAtMillis, connection, new CompletableFuture<>());
        // Netty's own record of which event loop runs this thread; null off the event loops (tests,
        // tools), where each packet goes alone.
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        if (loop == null) {
            send(List.of(pending));
            return pending.stored();
        }
        Batch batch = batches.get();
        batch.items.add(pending);
        batch.records += packet.size();
        if (batch.items.size() >= MAX_BATCH_PACKETS || batch.records >= MAX_BATCH_RECORDS) {
            send(batch.take());
        } else if (!batch.flushQueued) {
            // Runs after the loop has handled every channel that was ready in this round.
            batch.flushQueued = true;
            try {
                loop.execute(() -> {
                    batch.flushQueued = false;
                    if (!batch.items.isEmpty()) {
                        send(batch.take());
                    }
                });
            } catch (RejectedExecutionException shuttingDown) {
                batch.flushQueued = false;
                send(batch.take());
            }
        }
        return pending.stored();
    }

    private void send(List<Pending> items) {
        CompletionStage<List<Long>> call;
        try {
            call = APPEND.callIntegers(redis, arguments(items));
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((stored, error) -> {
            for (int i = 0; i < items.size(); i++) {
                CompletableFuture<Integer> result = items.get(i).stored();
                if (error != null) {
                    result.completeExceptionally(error);
                } else if (stored == null || stored.size() != items.size()) {
                    result.completeExceptionally(new IllegalStateException(
                            "append-packets.lua answered " + stored + " for " + items.size() + " packets"));
                } else {
                    result.complete(stored.get(i).intValue());
                }
            }
        });
    }

    /** The script's keys and arguments for several packets (layout in append-packets.lua). */
    RespArguments arguments(List<Pending> items) {
        List<Prepared> prepared = new ArrayList<>(items.size());
        int records = 0;
        for (Pending item : items) {
            Prepared p = prepare(item);
            prepared.add(p);
            records += p.count;
        }
        RespArguments args = new RespArguments(256 + items.size() * 160 + records * 240);
        args.number(1 + 3L * items.size()).text(keys.telemetry());
        for (Pending item : items) {
            String imei = item.imei().value();
            args.text(keys.deviceInfo(imei)).text(keys.dedupRecent(imei)).text(keys.dedupPrevious(imei));
        }
        args.encoded(dedupWindowMillis).encoded(dedupPerDevice).encoded(deviceInfoTtlMillis)
                .number(items.size());
        CodecId previousCodec = null;
        for (Prepared p : prepared) {
            Pending item = p.item;
            CodecId codec = item.packet().codec();
            List<AvlRecord> all = item.packet().records();
            args.number(p.newest).number(p.flags).number(p.count);
            if (codec == previousCodec) {
                args.number(0);
            } else {
                args.number(TelemetryEntryMapper.fieldNames(codec).size());
                mapper.appendValuePattern(codec, args);
                mapper.appendNames(codec, args);
                previousCodec = codec;
            }
            mapper.appendPacketValues(item.imei(), codec, item.receivedAtMillis(), args);
            if (dedup) {
                for (int i = 0; i < all.size(); i++) {
                    if (!p.repeat[i]) {
                        args.number(p.ids[i]);
                    }
                }
            }
            for (int i = 0; i < all.size(); i++) {
                if (!p.repeat[i]) {
                    mapper.appendRecordValues(codec, all.get(i), args);
                }
            }
        }
        return args;
    }

    /** Runs on the packet's event loop: the connection's guard is touched only there. */
    private Prepared prepare(Pending item) {
        CodecId codec = item.packet().codec();
        List<AvlRecord> all = item.packet().records();
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
        int flags = 0;
        if (dedup && item.connection().mayBeResent(ids)) {
            flags |= CHECK_DEDUP;
        }
        if (count > 0 && item.connection().infoRefreshDue(item.receivedAtMillis())) {
            flags |= REFRESH_INFO;
        }
        return new Prepared(item, ids, repeat, count, newest, flags);
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

    /** A packet waiting for its batch's call, and what the call tells about it. */
    record Pending(Imei imei, AvlPacket packet, long receivedAtMillis, ResendGuard connection,
                   CompletableFuture<Integer> stored) {
    }

    private record Prepared(Pending item, long[] ids, boolean[] repeat, int count, long newest, int flags) {
    }

    /** One event loop's packets of the current round; touched only by that loop's thread. */
    private static final class Batch {
        private List<Pending> items = new ArrayList<>();
        private int records;
        private boolean flushQueued;

        List<Pending> take() {
            List<Pending> taken = items;
            items = new ArrayList<>();
            records = 0;
            return taken;
        }
    }
}
