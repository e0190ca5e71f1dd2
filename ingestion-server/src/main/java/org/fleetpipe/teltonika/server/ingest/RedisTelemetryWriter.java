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
import java.util.concurrent.atomic.LongAdder;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.registry.LuaScript;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.registry.RespArguments;
import org.fleetpipe.teltonika.registry.TransactionPipe;

/**
 * Writes packets' records as stream entries with one script call per batch of packets, skipping
 * records a device already sent within the dedup window. The packets that reach one event loop
 * together (read in the same round of its I/O) go in one call, sent as soon as that round ends:
 * no waiting, only fewer and larger calls when the load is high, which is what Redis, the narrowest
 * part of the pipeline, spends less per record on. The arguments are encoded on the event loop,
 * not on Lettuce's single I/O thread.
 *
 * <p>Two paths. A packet whose records may have been sent before (see {@link ResendGuard}) goes
 * through append-packets.lua, which reads the device's dedup sets and writes in one atomic step.
 * With {@link TelemetryLanes}, the other packets of the round go to Redis as one {@code MULTI}
 * block of plain commands on the loop's own connection: per packet an {@code XADD} per record,
 * the identities added to the recent set with its TTL (and its rename when the connection's count
 * says it is full), and the device info refresh when due. Redis spends about 40 % less per record
 * on those than on the script's own XADDs, and the block is as atomic as the script: all of it or,
 * if the connection drops before EXEC, none. Without lanes (or while the loop's is not connected)
 * every packet takes the script.
 */
public final class RedisTelemetryWriter implements TelemetryWriter {

    private static final LuaScript APPEND = LuaScript.fromResource("ingest/append-packets.lua");
    /** Bounds one script run (about 4 us of Redis time per record), so other clients wait little. */
    static final int MAX_BATCH_PACKETS = 16;
    static final int MAX_BATCH_RECORDS = 256;
    /** Per-packet flags of append-packets.lua: read the dedup sets first; refresh the device info hash. */
    static final int CHECK_DEDUP = 1;
    static final int REFRESH_INFO = 2;

    private static final byte[] XADD = RespArguments.preEncoded("XADD");
    private static final byte[] AUTO_ID = RespArguments.preEncoded("*");
    private static final byte[] SADD = RespArguments.preEncoded("SADD");
    private static final byte[] PEXPIRE = RespArguments.preEncoded("PEXPIRE");
    private static final byte[] RENAME = RespArguments.preEncoded("RENAME");
    private static final byte[] EVAL = RespArguments.preEncoded("EVAL");
    private static final byte[] ONE = RespArguments.preEncoded("1");
    /** Sent whole, not by SHA: a script Redis lost (restart, SCRIPT FLUSH) cannot fail a block. */
    private static final byte[] REFRESH_INFO_BODY = RespArguments.preEncoded(LuaScript.read("ingest/refresh-info.lua"));

    private final RedisAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final TelemetryEntryMapper mapper;
    private final boolean dedup;
    private final byte[] dedupWindowMillis;
    private final byte[] dedupPerDevice;
    private final byte[] deviceInfoTtlMillis;
    private final byte[] streamKey;
    private final int dedupCap;
    private final TelemetryLanes lanes;
    private final LongAdder scriptPackets = new LongAdder();
    private final LongAdder blockPackets = new LongAdder();
    private final FastThreadLocal<Batch> batches = new FastThreadLocal<>() {
        @Override
        protected Batch initialValue() {
            return new Batch();
        }
    };

    /** Records seen within the dedup window (the last {@code dedupPerDevice} of a device) are not stored again. */
    public RedisTelemetryWriter(RedisAsyncCommands<String, String> redis, RedisKeys keys, TelemetryEntryMapper mapper,
                                TelemetryWriteSettings settings) {
        this(redis, keys, mapper, settings, null);
    }

    /** As above, the packets that need no dedup read sent in MULTI blocks on {@code lanes} (null: none). */
    public RedisTelemetryWriter(RedisAsyncCommands<String, String> redis, RedisKeys keys, TelemetryEntryMapper mapper,
                                TelemetryWriteSettings settings, TelemetryLanes lanes) {
        this.redis = redis;
        this.lanes = lanes;
        this.streamKey = RespArguments.preEncoded(keys.telemetry());
        this.dedupCap = settings.dedupPerDevice();
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
            send(List.of(pending), null);
            return pending.stored();
        }
        Batch batch = batches.get();
        if (!batch.pipeOpened && lanes != null) {
            batch.pipeOpened = true;
            batch.pipe = lanes.open(loop);
        }
        batch.items.add(pending);
        batch.records += packet.size();
        if (batch.items.size() >= MAX_BATCH_PACKETS || batch.records >= MAX_BATCH_RECORDS) {
            send(batch.take(), batch);
        } else if (!batch.flushQueued) {
            // Runs after the loop has handled every channel that was ready in this round.
            batch.flushQueued = true;
            try {
                loop.execute(() -> {
                    batch.flushQueued = false;
                    if (!batch.items.isEmpty()) {
                        send(batch.take(), batch);
                    }
                });
            } catch (RejectedExecutionException shuttingDown) {
                batch.flushQueued = false;
                send(batch.take(), batch);
            }
        }
        return pending.stored();
    }

    /** {@code batch} is the calling event loop's (null off the loops): its pipe and its scratch buffer. */
    private void send(List<Pending> items, Batch batch) {
        TransactionPipe pipe = batch == null ? null : batch.pipe;
        boolean direct = pipe != null && pipe.ready();
        List<Prepared> scripted = new ArrayList<>(items.size());
        List<Prepared> transacted = direct ? new ArrayList<>(items.size()) : List.of();
        try {
            for (Pending item : items) {
                Prepared p = prepare(item, direct);
                (direct && (p.flags & CHECK_DEDUP) == 0 ? transacted : scripted).add(p);
            }
        } catch (RuntimeException e) {
            items.forEach(item -> item.stored().completeExceptionally(e));
            return;
        }
        if (!scripted.isEmpty()) {
            sendScript(scripted);
        }
        if (!transacted.isEmpty()) {
            sendBlock(pipe, batch.scratch, transacted);
        }
    }

    private void sendScript(List<Prepared> items) {
        CompletionStage<List<Long>> call;
        try {
            call = APPEND.callIntegers(redis, arguments(items));
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((stored, error) -> {
            for (int i = 0; i < items.size(); i++) {
                CompletableFuture<Integer> result = items.get(i).item.stored();
                if (error != null) {
                    result.completeExceptionally(error);
                } else if (stored == null || stored.size() != items.size()) {
                    result.completeExceptionally(new IllegalStateException(
                            "append-packets.lua answered " + stored + " for " + items.size() + " packets"));
                } else {
                    scriptPackets.increment();
                    result.complete(stored.get(i).intValue());
                }
            }
        });
    }

    /** Every record of these packets is new (none may have been sent before), so each stores all it holds. */
    private void sendBlock(TransactionPipe pipe, RespArguments scratch, List<Prepared> items) {
        int count;
        try {
            count = commands(items, scratch.reset());
        } catch (RuntimeException e) {
            items.forEach(p -> p.item.stored().completeExceptionally(e));
            return;
        }
        pipe.send(scratch, count, error -> {
            if (error == null) {
                blockPackets.add(items.size());
            }
            for (Prepared p : items) {
                if (error == null) {
                    p.item.stored().complete(p.count);
                } else {
                    p.item.stored().completeExceptionally(new IllegalStateException("telemetry block failed: " + error));
                }
            }
        });
    }

    /**
     * Per packet: an XADD per record, then (with deduplication) the identities added to the recent
     * set, its TTL, and its rename when the connection's count says it is full; then, when due, the
     * device info refresh. Returns how many commands.
     */
    int commands(List<Prepared> items, RespArguments out) {
        int count = 0;
        for (Prepared p : items) {
            Pending item = p.item;
            CodecId codec = item.packet().codec();
            List<AvlRecord> all = item.packet().records();
            TelemetryEntryMapper.PacketEntry entry = mapper.packetEntry(item.imei(), codec, item.receivedAtMillis());
            int arguments = 3 + TelemetryEntryMapper.entryArguments(codec);
            for (int i = 0; i < all.size(); i++) {
                if (!p.repeat[i]) {
                    mapper.appendEntry(entry, all.get(i), out.command(arguments).encoded(XADD).encoded(streamKey)
                            .encoded(AUTO_ID));
                    count++;
                }
            }
            String imei = item.imei().value();
            if (dedup && p.count > 0) {
                String recent = keys.dedupRecent(imei);
                out.command(2 + p.count).encoded(SADD).text(recent);
                for (int i = 0; i < all.size(); i++) {
                    if (!p.repeat[i]) {
                        out.number(p.ids[i]);
                    }
                }
                out.command(3).encoded(PEXPIRE).text(recent).encoded(dedupWindowMillis);
                count += 2;
                if (p.renameRecent) {
                    out.command(3).encoded(RENAME).text(recent).text(keys.dedupPrevious(imei));
                    count++;
                }
            }
            if ((p.flags & REFRESH_INFO) != 0) {
                out.command(6).encoded(EVAL).encoded(REFRESH_INFO_BODY).encoded(ONE).text(keys.deviceInfo(imei))
                        .encoded(deviceInfoTtlMillis).number(p.newest);
                count++;
            }
        }
        return count;
    }

    /** Packets stored through append-packets.lua. */
    public long scriptPackets() {
        return scriptPackets.sum();
    }

    /** Packets stored in MULTI blocks. */
    public long blockPackets() {
        return blockPackets.sum();
    }

    /** The script's keys and arguments for several packets (layout in append-packets.lua). */
    RespArguments arguments(List<Prepared> prepared) {
        int records = 0;
        for (Prepared p : prepared) {
            records += p.count;
        }
        RespArguments args = new RespArguments(256 + prepared.size() * 160 + records * 240);
        args.number(1 + 3L * prepared.size()).text(keys.telemetry());
        for (Prepared p : prepared) {
            String imei = p.item.imei().value();
            args.text(keys.deviceInfo(imei)).text(keys.dedupRecent(imei)).text(keys.dedupPrevious(imei));
        }
        args.encoded(dedupWindowMillis).encoded(dedupPerDevice).encoded(deviceInfoTtlMillis)
                .number(prepared.size());
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

    /**
     * Runs on the packet's event loop: the connection's guard is touched only there. {@code direct}:
     * an unchecked packet goes in a block, where the guard's count decides the recent set's rename.
     */
    Prepared prepare(Pending item, boolean direct) {
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
        boolean renameRecent = false;
        if (dedup && item.connection().mayBeResent(ids)) {
            flags |= CHECK_DEDUP;
        } else if (dedup && direct) {
            renameRecent = item.connection().addedToRecent(count, dedupCap);
        }
        if (count > 0 && item.connection().infoRefreshDue(item.receivedAtMillis())) {
            flags |= REFRESH_INFO;
        }
        return new Prepared(item, ids, repeat, count, newest, flags, renameRecent);
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

    /** A packet ready to go: which records, and what the connection's guard decided. */
    record Prepared(Pending item, long[] ids, boolean[] repeat, int count, long newest, int flags,
                    boolean renameRecent) {
    }

    /** One event loop's packets of the current round; touched only by that loop's thread. */
    private static final class Batch {
        private List<Pending> items = new ArrayList<>();
        private int records;
        private boolean flushQueued;
        private boolean pipeOpened;
        private TransactionPipe pipe;
        /** Each block's bytes are written here, then copied into the pipe's buffer. */
        private final RespArguments scratch = new RespArguments(64 * 1024);

        List<Pending> take() {
            List<Pending> taken = items;
            items = new ArrayList<>();
            records = 0;
            return taken;
        }
    }
}
