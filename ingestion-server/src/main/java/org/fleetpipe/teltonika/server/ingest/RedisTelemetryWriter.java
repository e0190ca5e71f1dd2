package org.fleetpipe.teltonika.server.ingest;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;
import org.fleetpipe.teltonika.redis.RespArguments;
import org.fleetpipe.teltonika.redis.TransactionPipe;

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
 * if the connection drops before EXEC, none. A round's block waits while the loop's previous one
 * is unanswered ({@link #MAX_BLOCKS_IN_FLIGHT}). Without lanes (or while the loop's is not
 * connected) every packet takes the script.
 *
 * <p>A packet is read in place, from the bytes the caller lends for the call only, and encoded into
 * its call's arguments at once: no object per record exists on this path.
 *
 * <p>On a Redis Cluster with several partitions a script call may touch one slot only: each call
 * holds the packets of one partition, and the device info refresh, whose hash lives in the
 * namespace's slot with the registry, goes as a call of its own once the records are stored.
 */
public final class RedisTelemetryWriter implements TelemetryWriter {

    /** Bounds one script run or block (about 2-4 us of Redis time per record), so other clients wait little. */
    public static final int MAX_BATCH_PACKETS = 16;
    static final int MAX_BATCH_RECORDS = 256;
    /**
     * Blocks a loop's pipe may have unanswered before the next waits for an answer: the packets of
     * the rounds meanwhile join one larger block instead of each round sending its own (a full block
     * is sent at once regardless). At low load nothing waits; under load there are half as many
     * blocks, each one system call and one wake-up fewer on both sides. Redis's own cost is per
     * command, so this does not make its records cheaper (BENCHMARKS.md, ninth round).
     */
    static final int MAX_BLOCKS_IN_FLIGHT = 1;
    /** Per-packet flags of append-packets.lua: read the dedup sets first; refresh the device info hash. */
    static final int CHECK_DEDUP = 1;
    static final int REFRESH_INFO = 2;

    private static final byte[] SADD = RespArguments.preEncoded("SADD");
    private static final byte[] PEXPIRE = RespArguments.preEncoded("PEXPIRE");
    private static final byte[] RENAME = RespArguments.preEncoded("RENAME");
    private static final byte[] EVAL = RespArguments.preEncoded("EVAL");
    private static final byte[] ONE = RespArguments.preEncoded("1");
    /** Sent whole, not by SHA: a script Redis lost (restart, SCRIPT FLUSH) cannot fail a block. */
    private static final byte[] REFRESH_INFO_BODY = RespArguments.preEncoded(IngestScripts.REFRESH_INFO);

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisClusterAsyncCommands<String, String> infoRedis;
    private final IngestKeys keys;
    private final TelemetryEntryMapper mapper;
    private final boolean dedup;
    private final byte[] dedupWindowMillis;
    private final byte[] dedupPerDevice;
    private final byte[] deviceInfoTtlMillis;
    private final String deviceInfoTtlText;
    private final byte[] streamKey;
    private final int dedupCap;
    private final TelemetryLanes lanes;
    /** How long a block that is not full may wait for more packets, from its first one. */
    private final long blockLingerNanos;
    /** Script calls per partition (a cluster with several partitions), else one call for any devices. */
    private final boolean callPerPartition;
    private final LongAdder scriptPackets = new LongAdder();
    private final LongAdder blockPackets = new LongAdder();
    private final LongAdder blocks = new LongAdder();
    private final FastThreadLocal<Batch> batches = new FastThreadLocal<>() {
        @Override
        protected Batch initialValue() {
            return new Batch();
        }
    };

    /** Records seen within the dedup window (the last {@code dedupPerDevice} of a device) are not stored again. */
    public RedisTelemetryWriter(RedisClusterAsyncCommands<String, String> redis, IngestKeys keys,
                                TelemetryEntryMapper mapper, TelemetryWriteSettings settings) {
        this(redis, keys, mapper, settings, null);
    }

    /** As above, the packets that need no dedup read sent in MULTI blocks on {@code lanes} (null: none). */
    public RedisTelemetryWriter(RedisClusterAsyncCommands<String, String> redis, IngestKeys keys,
                                TelemetryEntryMapper mapper, TelemetryWriteSettings settings, TelemetryLanes lanes) {
        this(redis, keys, mapper, settings, lanes, false);
    }

    /**
     * As above; {@code cluster}: Redis is a cluster, whose script calls must keep to one slot
     * (no lanes then: a MULTI block has one connection, to one node).
     */
    public RedisTelemetryWriter(RedisClusterAsyncCommands<String, String> redis, IngestKeys keys,
                                TelemetryEntryMapper mapper, TelemetryWriteSettings settings, TelemetryLanes lanes,
                                boolean cluster) {
        this(redis, redis, keys, mapper, settings, lanes, cluster);
    }

    /**
     * As above, writing on {@code redis} and refreshing device info hashes apart on {@code infoRedis}:
     * a connection to one node ({@link ShardReplicaAcks}) cannot reach the namespace's slot, the
     * cluster connection can.
     */
    public RedisTelemetryWriter(RedisClusterAsyncCommands<String, String> redis,
                                RedisClusterAsyncCommands<String, String> infoRedis, IngestKeys keys,
                                TelemetryEntryMapper mapper, TelemetryWriteSettings settings, TelemetryLanes lanes,
                                boolean cluster) {
        if (cluster && lanes != null) {
            throw new IllegalArgumentException("no MULTI lanes on a Redis Cluster");
        }
        this.redis = redis;
        this.infoRedis = infoRedis;
        this.lanes = lanes;
        this.callPerPartition = cluster && keys.partitions() > 1;
        this.streamKey = RespArguments.preEncoded(keys.telemetry());
        this.dedupCap = settings.dedupPerDevice();
        this.keys = keys;
        this.mapper = mapper;
        this.dedup = settings.dedupWindow().toMillis() > 0;
        this.dedupWindowMillis = RespArguments.preEncoded(Long.toString(Math.max(0, settings.dedupWindow().toMillis())));
        this.dedupPerDevice = RespArguments.preEncoded(Integer.toString(settings.dedupPerDevice()));
        this.deviceInfoTtlText = Long.toString(settings.deviceInfoTtl().toMillis());
        this.deviceInfoTtlMillis = RespArguments.preEncoded(deviceInfoTtlText);
        this.blockLingerNanos = settings.blockLinger().toNanos();
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection,
                                          EventExecutor channelLoop) {
        // Batches are per thread: a call off its channel's loop (tests, tools, a completion on a
        // Redis thread) goes alone.
        EventExecutor loop = channelLoop != null && channelLoop.inEventLoop() ? channelLoop : null;
        Batch batch = loop == null ? new Batch(1024) : batches.get();
        if (loop != null && !batch.pipeOpened && lanes != null) {
            batch.pipeOpened = true;
            batch.pipe = lanes.open(loop);
            batch.loop = loop;
        }
        Pending pending;
        try {
            pending = batch.add(imei, packet, receivedAtMillis, connection);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (loop == null) {
            batch.send();
            return pending;
        }
        batch.sendFull();
        if (batch.holdsUnsent() && !batch.flushQueued) {
            // Runs after the loop has handled every channel that was ready in this round.
            batch.flushQueued = true;
            try {
                loop.execute(batch::roundEnded);
            } catch (RejectedExecutionException shuttingDown) {
                batch.flushQueued = false;
                batch.send();
            }
        }
        return pending;
    }

    /** Packets stored through append-packets.lua. */
    public long scriptPackets() {
        return scriptPackets.sum();
    }

    /** Packets stored in MULTI blocks. */
    public long blockPackets() {
        return blockPackets.sum();
    }

    /** MULTI blocks stored: {@link #blockPackets()} over this is how full they go (TELEMETRY_BLOCK_LINGER). */
    public long blocksWritten() {
        return blocks.sum();
    }

    /**
     * Which records repeat an earlier one of the same packet: left out, so the script gets distinct
     * identities and stores such a record once, as it would across packets.
     */
    static boolean[] repeats(long[] ids) {
        boolean[] repeat = new boolean[ids.length];
        for (int i = 0; i < ids.length; i++) {
            repeat[i] = repeatsEarlier(ids, i);
        }
        return repeat;
    }

    private static boolean repeatsEarlier(long[] ids, int i) {
        // Quadratic, but a packet holds at most 255 records and the usual one about ten.
        for (int j = 0; j < i; j++) {
            if (ids[j] == ids[i]) {
                return true;
            }
        }
        return false;
    }

    /** The packets gathered for one script call, encoded as they came; touched by one event loop only. */
    private static final class ScriptCall {
        /** The script's arguments after its fixed ones, packet by packet (layout in append-packets.lua). */
        private final RespArguments args;
        private List<Pending> packets = new ArrayList<>();
        /** Each packet's device keys, encoded once per connection: no key is built per packet here. */
        private final List<DeviceBulks> devices = new ArrayList<>();
        private CodecId codec;
        private int records;

        ScriptCall(int bytes) {
            args = new RespArguments(bytes);
        }

        boolean full() {
            return packets.size() >= MAX_BATCH_PACKETS || records >= MAX_BATCH_RECORDS;
        }
    }

    /** A packet's answer: completes with how many of its records were stored. */
    static final class Pending extends CompletableFuture<Integer> {
        /** Records the packet adds (the repeats within it left out): what a MULTI block stores of it. */
        private final int count;

        Pending(int count) {
            this.count = count;
        }
    }

    /**
     * One event loop's packets of the current round, already encoded: the script's per-packet
     * arguments for those that may be resends, the MULTI block's commands for the others. Encoded
     * when the packet arrives, not when the round ends, so its bytes (the frame's, lent by the
     * caller) are read only during the write call. Touched only by that loop's thread.
     */
    private final class Batch {
        private final AvlRecordCursor cursor = new AvlRecordCursor();
        private final TelemetryEntryMapper.PacketValues packetValues = new TelemetryEntryMapper.PacketValues(streamKey);
        private final long[] ids = new long[256];
        private final boolean[] repeat = new boolean[256];
        /** The script calls being gathered: one, or one per partition ({@link #callPerPartition}). */
        private final ScriptCall[] calls;
        private final int scriptBytes;
        /** The block's commands, copied into the pipe's buffer when sent. */
        private final RespArguments block;
        private List<Pending> blocked = new ArrayList<>();
        private int blockCommands;
        private int blockRecords;
        /** When the gathering block's first packet came: the linger counts from there. */
        private long blockOpenedNanos;
        private boolean lingerScheduled;
        private boolean flushQueued;
        private boolean pipeOpened;
        private TransactionPipe pipe;
        private EventExecutor loop;
        /** Inside the pipe's send, whose outcome may come at once (a pipe that just dropped). */
        private boolean sending;

        Batch(int bytes) {
            calls = new ScriptCall[callPerPartition ? keys.partitions() : 1];
            // Per partition, many calls share what one call would hold: they start small and grow.
            scriptBytes = callPerPartition ? Math.max(1024, bytes / 16) : bytes;
            block = new RespArguments(bytes);
        }

        private ScriptCall callFor(Imei imei) {
            int at = callPerPartition ? keys.partitionOf(imei.value()) : 0;
            ScriptCall call = calls[at];
            if (call == null) {
                call = new ScriptCall(scriptBytes);
                calls[at] = call;
            }
            return call;
        }

        Batch() {
            this(64 * 1024);
        }

        /** Reads the packet twice (identities and decisions, then its encoding) and adds it to one of the two calls. */
        Pending add(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection) {
            CodecId codec = packet.codec();
            int n = packet.size();
            int count = 0;
            long newest = 0;
            AvlRecordCursor r = cursor.reset(packet);
            for (int i = 0; r.next(); i++) {
                ids[i] = dedup ? RecordIdentity.of(codec, r) : 0;
                repeat[i] = dedup && repeatsEarlier(ids, i);
                if (!repeat[i]) {
                    count++;
                    newest = Math.max(newest, r.timestamp());
                }
            }
            // On the packet's event loop: the connection's guard is touched only there. A packet that
            // cannot be a resend goes in the block, where the guard's count decides the recent set's rename.
            boolean direct = pipe != null && pipe.ready();
            int flags = 0;
            boolean renameRecent = false;
            if (dedup && connection.mayBeResent(ids, n)) {
                flags |= CHECK_DEDUP;
            } else if (dedup && direct) {
                renameRecent = connection.addedToRecent(count, dedupCap);
            }
            if (count > 0 && connection.infoRefreshDue(receivedAtMillis)) {
                flags |= REFRESH_INFO;
            }
            Pending pending = new Pending(count);
            if (direct && (flags & CHECK_DEDUP) == 0) {
                int bytesBefore = block.byteLength();
                int argumentsBefore = block.count();
                try {
                    blockCommands += blockCommands(imei, connection, packet, receivedAtMillis, n, count, newest, flags,
                            renameRecent);
                } catch (RuntimeException e) {
                    block.truncate(bytesBefore, argumentsBefore);
                    throw e;
                }
                if (blocked.isEmpty()) {
                    blockOpenedNanos = System.nanoTime();
                }
                blocked.add(pending);
                blockRecords += n;
            } else {
                ScriptCall call = callFor(imei);
                int bytesBefore = call.args.byteLength();
                int argumentsBefore = call.args.count();
                CodecId codecBefore = call.codec;
                boolean refreshApart = callPerPartition && (flags & REFRESH_INFO) != 0;
                try {
                    scriptArguments(call, imei, packet, receivedAtMillis, n, count, newest,
                            refreshApart ? flags & ~REFRESH_INFO : flags);
                } catch (RuntimeException e) {
                    call.args.truncate(bytesBefore, argumentsBefore);
                    call.codec = codecBefore;
                    throw e;
                }
                call.packets.add(pending);
                call.devices.add(connection.bulks(imei, keys));
                call.records += n;
                if (refreshApart) {
                    long newestRecord = newest;
                    pending.thenRun(() -> refreshInfo(imei, newestRecord));
                }
            }
            return pending;
        }

        /**
         * Per packet: an XADD per record, then (with deduplication) the identities added to the recent
         * set, its TTL, and its rename when the connection's count says it is full; then, when due, the
         * device info refresh. Returns how many commands.
         */
        private int blockCommands(Imei imei, ResendGuard connection, AvlPacketView packet, long receivedAtMillis, int n,
                                  int count, long newest, int flags, boolean renameRecent) {
            RespArguments out = block;
            CodecId codec = packet.codec();
            DeviceBulks device = connection.bulks(imei, keys);
            TelemetryEntryMapper.PacketValues values = mapper.packetValues(packetValues, device.stream(), codec,
                    device.imeiBulk(), receivedAtMillis);
            int commands = 0;
            AvlRecordCursor r = cursor.reset(packet);
            for (int i = 0; r.next(); i++) {
                if (!repeat[i]) {
                    mapper.appendXadd(values, r, out);
                    commands++;
                }
            }
            if (dedup && count > 0) {
                byte[] recent = device.recent();
                out.command(2 + count).encoded(SADD).encoded(recent);
                for (int i = 0; i < n; i++) {
                    if (!repeat[i]) {
                        out.number(ids[i]);
                    }
                }
                out.command(3).encoded(PEXPIRE).encoded(recent).encoded(dedupWindowMillis);
                commands += 2;
                if (renameRecent) {
                    out.command(3).encoded(RENAME).encoded(recent).encoded(device.previous());
                    commands++;
                }
            }
            if ((flags & REFRESH_INFO) != 0) {
                out.command(6).encoded(EVAL).encoded(REFRESH_INFO_BODY).encoded(ONE).text(keys.deviceInfo(imei.value()))
                        .encoded(deviceInfoTtlMillis).number(newest);
                commands++;
            }
            return commands;
        }

        /** The packet's part of the script's arguments (layout in append-packets.lua). */
        private void scriptArguments(ScriptCall call, Imei imei, AvlPacketView packet, long receivedAtMillis, int n,
                                     int count, long newest, int flags) {
            RespArguments args = call.args;
            CodecId codec = packet.codec();
            args.number(newest).number(flags).number(count);
            if (codec == call.codec) {
                args.number(0);
            } else {
                args.number(TelemetryEntryMapper.fieldNames(codec).size());
                mapper.appendValuePattern(codec, args);
                mapper.appendNames(codec, args);
                call.codec = codec;
            }
            mapper.appendPacketValues(imei, codec, receivedAtMillis, args);
            if (dedup) {
                for (int i = 0; i < n; i++) {
                    if (!repeat[i]) {
                        args.number(ids[i]);
                    }
                }
            }
            AvlRecordCursor r = cursor.reset(packet);
            for (int i = 0; r.next(); i++) {
                if (!repeat[i]) {
                    mapper.appendRecordValues(codec, r, receivedAtMillis, args);
                }
            }
        }

        /** Sends everything gathered at once: the script calls, then the block. */
        void send() {
            sendScripts();
            if (!blocked.isEmpty()) {
                sendBlock();
            }
        }

        /** Sends a call that reached the batch bounds, whatever the pipe has in flight. */
        void sendFull() {
            for (ScriptCall call : calls) {
                if (call != null && call.full()) {
                    sendScript(call);
                }
            }
            if (blocked.size() >= MAX_BATCH_PACKETS || blockRecords >= MAX_BATCH_RECORDS) {
                sendBlock();
            }
        }

        boolean holdsUnsent() {
            for (ScriptCall call : calls) {
                if (call != null && !call.packets.isEmpty()) {
                    return true;
                }
            }
            return !blocked.isEmpty();
        }

        /** The loop's round is over: the script calls go now, the block when it is due. */
        void roundEnded() {
            flushQueued = false;
            sendScripts();
            sendBlockIfDue();
        }

        /**
         * Sends the gathered block once the pipe is free and the block has lingered its time; a
         * block that is not due yet is looked at again when it is. A busy pipe sends it on its answer.
         */
        private void sendBlockIfDue() {
            if (blocked.isEmpty() || pipe.inFlight() >= MAX_BLOCKS_IN_FLIGHT) {
                return;
            }
            long wait = blockLingerNanos - (System.nanoTime() - blockOpenedNanos);
            if (wait <= 0) {
                sendBlock();
            } else if (!lingerScheduled) {
                lingerScheduled = true;
                try {
                    loop.schedule(this::lingerEnded, wait, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException stopping) {
                    lingerScheduled = false;
                    sendBlock();
                }
            }
        }

        private void lingerEnded() {
            lingerScheduled = false;
            sendBlockIfDue();
        }

        private void sendScripts() {
            for (ScriptCall call : calls) {
                if (call != null && !call.packets.isEmpty()) {
                    sendScript(call);
                }
            }
        }

        private void sendScript(ScriptCall gathered) {
            List<Pending> items = gathered.packets;
            gathered.packets = new ArrayList<>();
            gathered.records = 0;
            CompletionStage<List<Long>> call;
            try {
                RespArguments args = new RespArguments(256 + items.size() * 96 + gathered.args.byteLength());
                args.number(4L * items.size());
                for (DeviceBulks device : gathered.devices) {
                    // Per partition on a cluster, the info hash is in another slot and refreshed apart:
                    // the stream stands in for it, never touched (Redis refuses a call whose keys span slots).
                    args.encoded(device.stream()).encoded(callPerPartition ? device.stream() : device.info())
                            .encoded(device.recent()).encoded(device.previous());
                }
                // Every packet of a call is in one slot on a cluster: the first one's stream routes it.
                String firstStream = keys.telemetryOf(gathered.devices.get(0).imei().value());
                args.encoded(dedupWindowMillis).encoded(dedupPerDevice).encoded(deviceInfoTtlMillis)
                        .number(items.size()).append(gathered.args);
                call = IngestScripts.APPEND_PACKETS.callIntegers(redis, args, firstStream);
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            } finally {
                gathered.args.reset();
                gathered.devices.clear();
                gathered.codec = null;
            }
            call.whenComplete((stored, error) -> {
                for (int i = 0; i < items.size(); i++) {
                    Pending result = items.get(i);
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
        private void sendBlock() {
            List<Pending> items = blocked;
            blocked = new ArrayList<>();
            int count = blockCommands;
            blockCommands = 0;
            blockRecords = 0;
            sending = true;
            try {
                pipe.send(block, count, error -> {
                    if (sending) {
                        // Told at once, from inside send: completing now could run a device's next
                        // packet (its ACK, then its next frame) into this block before it is emptied.
                        try {
                            loop.execute(() -> completeBlock(items, error));
                        } catch (RejectedExecutionException stopping) {
                            completeBlock(items, error);
                        }
                    } else {
                        completeBlock(items, error);
                        // What gathered while this block was out goes when due, unless another
                        // round's end is queued to look at it.
                        if (!flushQueued) {
                            sendBlockIfDue();
                        }
                    }
                });
            } finally {
                sending = false;
                block.reset();
            }
        }

        /** The device info refresh on its own (a cluster: the hash is not in the records' slot); best effort. */
        private void refreshInfo(Imei imei, long newest) {
            infoRedis.<Long>eval(IngestScripts.REFRESH_INFO, ScriptOutputType.INTEGER,
                    new String[] {keys.deviceInfo(imei.value())}, deviceInfoTtlText,
                    Long.toString(newest));
        }

        private void completeBlock(List<Pending> items, String error) {
            if (error == null) {
                blockPackets.add(items.size());
                blocks.increment();
            }
            for (Pending p : items) {
                if (error == null) {
                    p.complete(p.count);
                } else {
                    p.completeExceptionally(new IllegalStateException("telemetry block failed: " + error));
                }
            }
        }
    }
}
