package org.fleetpipe.teltonika.server.ingest;

import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;
import org.fleetpipe.teltonika.redis.RespArguments;
import org.fleetpipe.teltonika.redis.TransactionPipe;

/**
 * One event loop's packets that cannot be resends, as one {@code MULTI} block of plain commands
 * on the loop's own connection ({@link TelemetryLanes}): per packet an {@code XADD} per record,
 * the identities added to the recent set with its TTL (and its rename when the connection's count
 * says it is full), and the device info refresh when due. Encoded as they come; a block waits while
 * the loop's previous one is unanswered ({@link RedisTelemetryWriter#MAX_BLOCKS_IN_FLIGHT}) and,
 * unless full, lingers its time from its first packet. Touched by that loop's thread only.
 */
final class MultiBlock {

    private static final byte[] SADD = RespArguments.preEncoded("SADD");
    private static final byte[] PEXPIRE = RespArguments.preEncoded("PEXPIRE");
    private static final byte[] RENAME = RespArguments.preEncoded("RENAME");
    private static final byte[] EVAL = RespArguments.preEncoded("EVAL");
    private static final byte[] ONE = RespArguments.preEncoded("1");
    /** Sent whole, not by SHA: a script Redis lost (restart, SCRIPT FLUSH) cannot fail a block. */
    private static final byte[] REFRESH_INFO_BODY = RespArguments.preEncoded(IngestScripts.REFRESH_INFO);

    private final WriterParts parts;
    private final TelemetryEntryMapper.PacketValues packetValues;
    /** The block's commands, copied into the pipe's buffer when sent. */
    private final RespArguments block;
    /** Whether the loop's round end is queued, which looks at the block itself. */
    private final BooleanSupplier roundEndQueued;
    private List<PendingPacket> blocked = new ArrayList<>();
    private int commands;
    private int records;
    /** When the gathering block's first packet came: the linger counts from there. */
    private long openedNanos;
    private boolean lingerScheduled;
    private TransactionPipe pipe;
    private EventExecutor loop;
    /** Inside the pipe's send, whose outcome may come at once (a pipe that just dropped). */
    private boolean sending;

    MultiBlock(WriterParts parts, int bytes, BooleanSupplier roundEndQueued) {
        this.parts = parts;
        this.packetValues = new TelemetryEntryMapper.PacketValues(parts.streamKey);
        this.block = new RespArguments(bytes);
        this.roundEndQueued = roundEndQueued;
    }

    /** The loop's lane: {@code pipe} (null: none) on {@code loop}. */
    void open(TransactionPipe pipe, EventExecutor loop) {
        this.pipe = pipe;
        this.loop = loop;
    }

    /** Whether the lane is connected: else every packet takes the script. */
    boolean ready() {
        return pipe != null && pipe.ready();
    }

    /** Adds the packet ({@code scan} holds its first reading); every record it adds is new. */
    void add(Imei imei, AvlPacketView packet, long receivedAtMillis, PacketScan scan, boolean refreshInfo,
             boolean renameRecent, PendingPacket pending, ResendGuard connection) {
        int bytesBefore = block.byteLength();
        int argumentsBefore = block.count();
        try {
            commands += commands(imei, connection, packet, receivedAtMillis, scan, refreshInfo, renameRecent);
        } catch (RuntimeException e) {
            block.truncate(bytesBefore, argumentsBefore);
            throw e;
        }
        if (blocked.isEmpty()) {
            openedNanos = System.nanoTime();
        }
        blocked.add(pending);
        records += scan.size();
    }

    /**
     * Per packet: an XADD per record, then (with deduplication) the identities added to the recent
     * set, its TTL, and its rename when the connection's count says it is full; then, when due, the
     * device info refresh. Returns how many commands.
     */
    private int commands(Imei imei, ResendGuard connection, AvlPacketView packet, long receivedAtMillis,
                         PacketScan scan, boolean refreshInfo, boolean renameRecent) {
        RespArguments out = block;
        TelemetryEntryMapper mapper = parts.mapper;
        CodecId codec = packet.codec();
        DeviceBulks device = connection.bulks(imei, parts.keys);
        TelemetryEntryMapper.PacketValues values = mapper.packetValues(packetValues, device.stream(), codec,
                device.imeiBulk(), receivedAtMillis);
        int n = scan.size();
        int count = scan.count();
        int written = 0;
        AvlRecordCursor r = scan.records(packet);
        for (int i = 0; r.next(); i++) {
            if (!scan.repeat(i)) {
                mapper.appendXadd(values, r, out);
                written++;
            }
        }
        if (parts.dedup && count > 0) {
            byte[] recent = device.recent();
            out.command(2 + count).encoded(SADD).encoded(recent);
            for (int i = 0; i < n; i++) {
                if (!scan.repeat(i)) {
                    out.number(scan.id(i));
                }
            }
            out.command(3).encoded(PEXPIRE).encoded(recent).encoded(parts.dedupWindowMillis);
            written += 2;
            if (renameRecent) {
                out.command(3).encoded(RENAME).encoded(recent).encoded(device.previous());
                written++;
            }
        }
        if (refreshInfo) {
            out.command(6).encoded(EVAL).encoded(REFRESH_INFO_BODY).encoded(ONE)
                    .text(parts.keys.deviceInfo(imei.value())).encoded(parts.deviceInfoTtlMillis).number(scan.newest());
            written++;
        }
        return written;
    }

    boolean holdsUnsent() {
        return !blocked.isEmpty();
    }

    /** Sends the block once it reached the batch bounds, whatever the pipe has in flight. */
    void sendIfFull() {
        if (blocked.size() >= RedisTelemetryWriter.MAX_BATCH_PACKETS
                || records >= RedisTelemetryWriter.MAX_BATCH_RECORDS) {
            send();
        }
    }

    /** Sends what is gathered now, if anything. */
    void sendAny() {
        if (!blocked.isEmpty()) {
            send();
        }
    }

    /**
     * Sends the gathered block once the pipe is free and the block has lingered its time; a
     * block that is not due yet is looked at again when it is. A busy pipe sends it on its answer.
     */
    void sendIfDue() {
        if (blocked.isEmpty() || pipe.inFlight() >= RedisTelemetryWriter.MAX_BLOCKS_IN_FLIGHT) {
            return;
        }
        long wait = parts.blockLingerNanos - (System.nanoTime() - openedNanos);
        if (wait <= 0) {
            send();
        } else if (!lingerScheduled) {
            lingerScheduled = true;
            try {
                loop.schedule(this::lingerEnded, wait, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException stopping) {
                lingerScheduled = false;
                send();
            }
        }
    }

    private void lingerEnded() {
        lingerScheduled = false;
        sendIfDue();
    }

    /** Every record of these packets is new (none may have been sent before), so each stores all it holds. */
    private void send() {
        List<PendingPacket> items = blocked;
        blocked = new ArrayList<>();
        int count = commands;
        commands = 0;
        records = 0;
        sending = true;
        try {
            pipe.send(block, count, error -> {
                if (sending) {
                    // Told at once, from inside send: completing now could run a device's next
                    // packet (its ACK, then its next frame) into this block before it is emptied.
                    try {
                        loop.execute(() -> complete(items, error));
                    } catch (RejectedExecutionException stopping) {
                        complete(items, error);
                    }
                } else {
                    complete(items, error);
                    // What gathered while this block was out goes when due, unless another
                    // round's end is queued to look at it.
                    if (!roundEndQueued.getAsBoolean()) {
                        sendIfDue();
                    }
                }
            });
        } finally {
            sending = false;
            block.reset();
        }
    }

    private void complete(List<PendingPacket> items, String error) {
        if (error == null) {
            parts.blockPackets.add(items.size());
            parts.blocks.increment();
        }
        for (PendingPacket p : items) {
            if (error == null) {
                p.complete(p.count);
            } else {
                p.completeExceptionally(new IllegalStateException("telemetry block failed: " + error));
            }
        }
    }
}
