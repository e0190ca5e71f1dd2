package org.fleetpipe.teltonika.server.ingest;

import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;
import org.fleetpipe.teltonika.redis.RespArguments;

/**
 * One event loop's packets for append-packets.lua, which reads the devices' dedup sets and writes
 * in one atomic step: encoded into a call's arguments as they come, one call, or one per partition
 * on a Redis Cluster (a call may touch one slot only). Touched by that loop's thread only.
 */
final class ScriptCalls {

    /** Per-packet flags of append-packets.lua: read the dedup sets first; refresh the device info hash. */
    static final int CHECK_DEDUP = 1;
    static final int REFRESH_INFO = 2;

    private final WriterParts parts;
    /** The calls being gathered: one, or one per partition ({@link WriterParts#callPerPartition}). */
    private final ScriptCall[] calls;
    private final int callBytes;

    ScriptCalls(WriterParts parts, int bytes) {
        this.parts = parts;
        calls = new ScriptCall[parts.callPerPartition ? parts.keys.partitions() : 1];
        // Per partition, many calls share what one call would hold: they start small and grow.
        callBytes = parts.callPerPartition ? Math.max(1024, bytes / 16) : bytes;
    }

    /** The packets gathered for one script call, encoded as they came. */
    private static final class ScriptCall {
        /** The script's arguments after its fixed ones, packet by packet (layout in append-packets.lua). */
        private final RespArguments args;
        private List<PendingPacket> packets = new ArrayList<>();
        /** Each packet's device keys, encoded once per connection: no key is built per packet here. */
        private final List<DeviceBulks> devices = new ArrayList<>();
        private CodecId codec;
        private int records;

        ScriptCall(int bytes) {
            args = new RespArguments(bytes);
        }

        boolean full() {
            return packets.size() >= RedisTelemetryWriter.MAX_BATCH_PACKETS
                    || records >= RedisTelemetryWriter.MAX_BATCH_RECORDS;
        }
    }

    /**
     * Adds the packet ({@code scan} holds its first reading) to its call with {@code flags}; on a
     * cluster with several partitions a due info refresh goes apart once the records are stored.
     */
    void add(Imei imei, AvlPacketView packet, long receivedAtMillis, PacketScan scan, int flags, PendingPacket pending,
             ResendGuard connection) {
        ScriptCall call = callFor(imei);
        int bytesBefore = call.args.byteLength();
        int argumentsBefore = call.args.count();
        CodecId codecBefore = call.codec;
        boolean refreshApart = parts.callPerPartition && (flags & REFRESH_INFO) != 0;
        try {
            arguments(call, imei, packet, receivedAtMillis, scan, refreshApart ? flags & ~REFRESH_INFO : flags);
        } catch (RuntimeException e) {
            call.args.truncate(bytesBefore, argumentsBefore);
            call.codec = codecBefore;
            throw e;
        }
        call.packets.add(pending);
        call.devices.add(connection.bulks(imei, parts.keys));
        call.records += scan.size();
        if (refreshApart) {
            long newest = scan.newest();
            pending.thenRun(() -> refreshInfo(imei, newest));
        }
    }

    private ScriptCall callFor(Imei imei) {
        int at = parts.callPerPartition ? parts.keys.partitionOf(imei.value()) : 0;
        ScriptCall call = calls[at];
        if (call == null) {
            call = new ScriptCall(callBytes);
            calls[at] = call;
        }
        return call;
    }

    /** The packet's part of the script's arguments (layout in append-packets.lua). */
    private void arguments(ScriptCall call, Imei imei, AvlPacketView packet, long receivedAtMillis, PacketScan scan,
                           int flags) {
        RespArguments args = call.args;
        TelemetryEntryMapper mapper = parts.mapper;
        CodecId codec = packet.codec();
        int n = scan.size();
        args.number(scan.newest()).number(flags).number(scan.count());
        if (codec == call.codec) {
            args.number(0);
        } else {
            args.number(TelemetryEntryMapper.fieldNames(codec).size());
            mapper.appendValuePattern(codec, args);
            mapper.appendNames(codec, args);
            call.codec = codec;
        }
        mapper.appendPacketValues(imei, codec, receivedAtMillis, args);
        if (parts.dedup) {
            for (int i = 0; i < n; i++) {
                if (!scan.repeat(i)) {
                    args.number(scan.id(i));
                }
            }
        }
        AvlRecordCursor r = scan.records(packet);
        for (int i = 0; r.next(); i++) {
            if (!scan.repeat(i)) {
                mapper.appendRecordValues(codec, r, receivedAtMillis, args);
            }
        }
    }

    /** Sends each call that reached the batch bounds. */
    void sendFull() {
        for (ScriptCall call : calls) {
            if (call != null && call.full()) {
                send(call);
            }
        }
    }

    /** Sends every call that holds a packet. */
    void sendAll() {
        for (ScriptCall call : calls) {
            if (call != null && !call.packets.isEmpty()) {
                send(call);
            }
        }
    }

    boolean holdsUnsent() {
        for (ScriptCall call : calls) {
            if (call != null && !call.packets.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private void send(ScriptCall gathered) {
        List<PendingPacket> items = gathered.packets;
        gathered.packets = new ArrayList<>();
        gathered.records = 0;
        CompletionStage<List<Long>> call;
        try {
            RespArguments args = new RespArguments(256 + items.size() * 96 + gathered.args.byteLength());
            args.number(4L * items.size());
            for (DeviceBulks device : gathered.devices) {
                // Per partition on a cluster, the info hash is in another slot and refreshed apart:
                // the stream stands in for it, never touched (Redis refuses a call whose keys span slots).
                args.encoded(device.stream()).encoded(parts.callPerPartition ? device.stream() : device.info())
                        .encoded(device.recent()).encoded(device.previous());
            }
            // Every packet of a call is in one slot on a cluster: the first one's stream routes it.
            String firstStream = parts.keys.telemetryOf(gathered.devices.get(0).imei().value());
            args.encoded(parts.dedupWindowMillis).encoded(parts.dedupPerDevice).encoded(parts.deviceInfoTtlMillis)
                    .number(items.size()).append(gathered.args);
            call = IngestScripts.APPEND_PACKETS.callIntegers(parts.redis, args, firstStream);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        } finally {
            gathered.args.reset();
            gathered.devices.clear();
            gathered.codec = null;
        }
        call.whenComplete((stored, error) -> {
            for (int i = 0; i < items.size(); i++) {
                PendingPacket result = items.get(i);
                if (error != null) {
                    result.completeExceptionally(error);
                } else if (stored == null || stored.size() != items.size()) {
                    result.completeExceptionally(new IllegalStateException(
                            "append-packets.lua answered " + stored + " for " + items.size() + " packets"));
                } else {
                    parts.scriptPackets.increment();
                    result.complete(stored.get(i).intValue());
                }
            }
        });
    }

    /** The device info refresh on its own (a cluster: the hash is not in the records' slot); best effort. */
    private void refreshInfo(Imei imei, long newest) {
        parts.infoRedis.<Long>eval(IngestScripts.REFRESH_INFO, ScriptOutputType.INTEGER,
                new String[] {parts.keys.deviceInfo(imei.value())}, parts.deviceInfoTtlText, Long.toString(newest));
    }
}
