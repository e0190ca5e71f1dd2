package org.fleetpipe.teltonika.server.ingest;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;

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
 *
 * <p>Each event loop's round is a {@link LoopBatch}: it reads a packet once ({@link PacketScan}) and
 * puts it on the script path ({@link ScriptCalls}) or in the block ({@link MultiBlock}).
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

    private final WriterParts parts;
    private final TelemetryLanes lanes;
    private final FastThreadLocal<LoopBatch> batches = new FastThreadLocal<>() {
        @Override
        protected LoopBatch initialValue() {
            return new LoopBatch(parts, 64 * 1024);
        }
    };

    /** Records seen within the dedup window (the last {@code dedupPerDevice} of a device) are not stored again. */
    public RedisTelemetryWriter(RedisClusterAsyncCommands<String, String> redis, IngestKeys keys, TelemetryEntryMapper mapper,
                                TelemetryWriteSettings settings) {
        this(redis, keys, mapper, settings, null);
    }

    /** As above, the packets that need no dedup read sent in MULTI blocks on {@code lanes} (null: none). */
    public RedisTelemetryWriter(RedisClusterAsyncCommands<String, String> redis, IngestKeys keys, TelemetryEntryMapper mapper,
                                TelemetryWriteSettings settings, TelemetryLanes lanes) {
        this(redis, keys, mapper, settings, lanes, false);
    }

    /**
     * As above; {@code cluster}: Redis is a cluster, whose script calls must keep to one slot
     * (no lanes then: a MULTI block has one connection, to one node).
     */
    public RedisTelemetryWriter(RedisClusterAsyncCommands<String, String> redis, IngestKeys keys, TelemetryEntryMapper mapper,
                                TelemetryWriteSettings settings, TelemetryLanes lanes, boolean cluster) {
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
        this.parts = new WriterParts(redis, infoRedis, keys, mapper, settings, cluster);
        this.lanes = lanes;
    }

    @Override
    public CompletionStage<Integer> write(Imei imei, AvlPacketView packet, long receivedAtMillis, ResendGuard connection,
                                          EventExecutor channelLoop) {
        // Batches are per thread: a call off its channel's loop (tests, tools, a completion on a
        // Redis thread) goes alone.
        EventExecutor loop = channelLoop != null && channelLoop.inEventLoop() ? channelLoop : null;
        LoopBatch batch = loop == null ? new LoopBatch(parts, 1024) : batches.get();
        if (loop != null) {
            batch.openLaneOnce(lanes, loop);
        }
        PendingPacket pending;
        try {
            pending = batch.add(imei, packet, receivedAtMillis, connection);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (loop == null) {
            batch.send();
        } else {
            batch.added(loop);
        }
        return pending;
    }

    /** Packets stored through append-packets.lua. */
    public long scriptPackets() {
        return parts.scriptPackets.sum();
    }

    /** Packets stored in MULTI blocks. */
    public long blockPackets() {
        return parts.blockPackets.sum();
    }

    /** MULTI blocks stored: {@link #blockPackets()} over this is how full they go (TELEMETRY_BLOCK_LINGER). */
    public long blocksWritten() {
        return parts.blocks.sum();
    }
}
