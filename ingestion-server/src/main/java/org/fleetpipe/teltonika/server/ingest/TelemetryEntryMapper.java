package org.fleetpipe.teltonika.server.ingest;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;
import org.fleetpipe.teltonika.payload.EntryField;
import org.fleetpipe.teltonika.redis.RespArguments;

/**
 * The stream entry fields of the contract, in the contract's order, written straight into RESP: as
 * the script call's arguments (the field names and the values every record of a packet shares, once
 * per packet; the other values per record), or as whole XADD commands of a MULTI block.
 */
public final class TelemetryEntryMapper {

    /**
     * The entry layout's version, in every entry's {@code schema} field (TELEMETRY.md). 2 added
     * {@code valid}: a field a consumer must look at before it trusts {@code lat}, {@code lon} and
     * {@code ts}, so consumers learn of it from the version rather than by chance.
     */
    public static final String SCHEMA_VERSION = "2";
    private static final byte[] ENCODED_SCHEMA_VERSION = RespArguments.preEncoded(SCHEMA_VERSION);
    /** Coordinates come as degrees x 10^7 and are written as plain decimal degrees (the contract). */
    private static final int DEGREES_SCALE = 7;
    private static final byte[] XADD = RespArguments.preEncoded("XADD");
    private static final byte[] AUTO_ID = RespArguments.preEncoded("*");
    private static final byte[] VALID = RespArguments.preEncoded("1");
    private static final byte[] INVALID = RespArguments.preEncoded("0");

    /** The contract's fields in its order (payload's EntryField): appendRecord writes the values in it. */
    private static final List<String> FIELDS = keys(EntryField.written(false));
    private static final List<String> FIELDS_WITH_GEN = keys(EntryField.written(true));
    /** The fields every record of a packet has the same value of. */
    private static final Set<EntryField> PACKET_WIDE = EnumSet.of(EntryField.IMEI, EntryField.CODEC, EntryField.RX,
            EntryField.INSTANCE, EntryField.SCHEMA);
    private static final byte[][] ENCODED = encode(FIELDS);
    private static final byte[][] ENCODED_WITH_GEN = encode(FIELDS_WITH_GEN);
    /** Per field: 'p' when the whole packet has one value (written by appendPacketValues), 'r' per record. */
    private static final String PATTERN = pattern(FIELDS);
    private static final String PATTERN_WITH_GEN = pattern(FIELDS_WITH_GEN);
    private static final byte[] ENCODED_PATTERN = RespArguments.preEncoded(PATTERN);
    private static final byte[] ENCODED_PATTERN_WITH_GEN = RespArguments.preEncoded(PATTERN_WITH_GEN);
    /** Every codec's label, by ordinal. */
    private static final byte[][] ENCODED_LABELS = java.util.Arrays.stream(CodecId.values())
            .map(c -> RespArguments.preEncoded(c.label())).toArray(byte[][]::new);

    private record EncodedId(String id, byte[] bulk) {
    }

    private final Supplier<String> instanceId;
    private final RecordValidity validity;
    private volatile EncodedId instance = new EncodedId("", RespArguments.preEncoded(""));

    /**
     * {@code instanceId} is asked per packet: the id changes if the instance has to re-incarnate.
     * {@code validity} decides each record's {@code valid} field and is told of every record encoded.
     */
    public TelemetryEntryMapper(Supplier<String> instanceId, RecordValidity validity) {
        this.instanceId = instanceId;
        this.validity = validity;
    }

    /** With the default validity rule, unobserved. */
    public TelemetryEntryMapper(Supplier<String> instanceId) {
        this(instanceId, RecordValidity.unobserved());
    }

    public TelemetryEntryMapper(String instanceId) {
        this(() -> instanceId);
    }

    /** The field names of every entry of a {@code codec} packet (Codec 16 adds {@code gen}). */
    public static List<String> fieldNames(CodecId codec) {
        return codec == CodecId.CODEC_16 ? FIELDS_WITH_GEN : FIELDS;
    }

    /** Appends the field names of a {@code codec} packet's entries; returns how many. */
    public int appendNames(CodecId codec, RespArguments out) {
        byte[][] names = codec == CodecId.CODEC_16 ? ENCODED_WITH_GEN : ENCODED;
        for (byte[] name : names) {
            out.encoded(name);
        }
        return names.length;
    }

    /** 'p' or 'r' per field of {@link #fieldNames}: whether the value is the packet's or the record's. */
    public static String valuePattern(CodecId codec) {
        return codec == CodecId.CODEC_16 ? PATTERN_WITH_GEN : PATTERN;
    }

    /** Appends {@link #valuePattern} as one argument. */
    public void appendValuePattern(CodecId codec, RespArguments out) {
        out.encoded(codec == CodecId.CODEC_16 ? ENCODED_PATTERN_WITH_GEN : ENCODED_PATTERN);
    }

    /** Appends the values every record of the packet shares, in field order ('p' in the pattern). */
    public void appendPacketValues(Imei imei, CodecId codec, long receivedAtMillis, RespArguments out) {
        out.text(imei.value());
        out.text(codec.label());
        out.number(receivedAtMillis);
        out.encoded(instanceBulk());
        out.encoded(ENCODED_SCHEMA_VERSION);
    }

    /**
     * Appends the values of the cursor's record, in field order ('r' in the pattern); reads its IO to
     * the last. {@code receivedAtMillis} is the packet's (its clock is checked against it).
     */
    public void appendRecordValues(CodecId codec, AvlRecordCursor r, long receivedAtMillis, RespArguments out) {
        appendRecord(codec, r, receivedAtMillis, out, null);
    }

    /**
     * The cursor's record as one whole {@code XADD <stream> * name value ...} command, names and values
     * in field order (a MULTI block's command). Reads its IO to the last.
     */
    public void appendXadd(PacketValues packet, AvlRecordCursor r, RespArguments out) {
        appendRecord(packet.codec, r, packet.receivedAtMillis, out, packet);
    }

    /**
     * Fills {@code into} with the values every entry of one packet shares, encoded once for the
     * packet's {@link #appendXadd} calls: the holder is reused from packet to packet.
     */
    public PacketValues packetValues(PacketValues into, CodecId codec, byte[] imeiBulk, long receivedAtMillis) {
        return packetValues(into, into.streamKey, codec, imeiBulk, receivedAtMillis);
    }

    /** As above, the entries going to {@code streamKey} (the device's partition's stream, pre-encoded). */
    public PacketValues packetValues(PacketValues into, byte[] streamKey, CodecId codec, byte[] imeiBulk,
                                     long receivedAtMillis) {
        byte[][] names = codec == CodecId.CODEC_16 ? ENCODED_WITH_GEN : ENCODED;
        int last = names.length - 2;
        into.codec = codec;
        into.receivedAtMillis = receivedAtMillis;
        into.head.reset().command(3 + entryArguments(codec)).encoded(XADD).encoded(streamKey).encoded(AUTO_ID)
                .encoded(names[0]).encoded(imeiBulk).encoded(names[1]).encoded(ENCODED_LABELS[codec.ordinal()]);
        into.receivedAt.reset().encoded(names[3]).number(receivedAtMillis);
        into.tail.reset().encoded(names[last]).encoded(instanceBulk()).encoded(names[last + 1])
                .encoded(ENCODED_SCHEMA_VERSION);
        return into;
    }

    /**
     * A packet's shared parts of its entries' XADD commands, encoded once per packet and copied whole
     * into each (one copy instead of a call per bulk string); one holder per event loop, refilled per packet.
     */
    public static final class PacketValues {
        private final byte[] streamKey;
        private CodecId codec;
        private long receivedAtMillis;
        /** The command's header, name, stream, id, and the imei and codec fields. */
        private final RespArguments head = new RespArguments(128);
        /** The rx field. */
        private final RespArguments receivedAt = new RespArguments(32);
        /** The instance and schema fields. */
        private final RespArguments tail = new RespArguments(128);

        /** {@code streamKey}: the telemetry stream's name, {@link RespArguments#preEncoded}. */
        public PacketValues(byte[] streamKey) {
            this.streamKey = streamKey;
        }
    }

    /** Bulk strings per entry (names and values) that {@link #appendXadd} writes after the stream and id. */
    public static int entryArguments(CodecId codec) {
        return 2 * fieldNames(codec).size();
    }

    /**
     * A record's values in field order; with {@code packet} (a whole entry), each after its name,
     * and the packet's own values with them.
     */
    private void appendRecord(CodecId codec, AvlRecordCursor r, long receivedAtMillis, RespArguments out,
                              PacketValues packet) {
        boolean entry = packet != null;
        byte[][] names = codec == CodecId.CODEC_16 ? ENCODED_WITH_GEN : ENCODED;
        int k = 0;
        if (entry) {
            out.append(packet.head);
        }
        k += 2;
        name(out, names, k++, entry).number(r.timestamp());
        if (entry) {
            out.append(packet.receivedAt);
        }
        k++;
        name(out, names, k++, entry).number(r.priority());
        name(out, names, k++, entry).decimal(r.latitude(), DEGREES_SCALE);
        name(out, names, k++, entry).decimal(r.longitude(), DEGREES_SCALE);
        name(out, names, k++, entry).number(r.altitude());
        name(out, names, k++, entry).number(r.angle());
        name(out, names, k++, entry).number(r.satellites());
        name(out, names, k++, entry).number(r.speed());
        name(out, names, k++, entry).number(r.eventIoId());
        if (codec == CodecId.CODEC_16) {
            name(out, names, k++, entry).number(r.generationType());
        }
        putIoJson(name(out, names, k++, entry).open(), r).close();
        boolean valid = validity.check(r.timestamp(), receivedAtMillis, r.satellites(), r.latitude(),
                r.longitude()) == null;
        name(out, names, k, entry).encoded(valid ? VALID : INVALID);
        if (entry) {
            out.append(packet.tail);
        }
    }

    private static RespArguments name(RespArguments out, byte[][] names, int k, boolean entry) {
        return entry ? out.encoded(names[k]) : out;
    }

    private byte[] instanceBulk() {
        String id = instanceId.get();
        EncodedId cached = instance;
        if (!cached.id().equals(id)) {
            cached = new EncodedId(id, RespArguments.preEncoded(id));
            instance = cached;
        }
        return cached.bulk();
    }

    /** The text written for a coordinate the device sent as {@code raw} (degrees x 10^7): for tests. */
    static String degrees(int raw) {
        return new RespArguments(32).decimal(raw, DEGREES_SCALE).strings().get(0);
    }

    /**
     * The cursor's IO elements to the last, as JSON: numbers stay numbers (unsigned); variable-length
     * values become lowercase hex strings. Keys need no escaping.
     */
    static RespArguments putIoJson(RespArguments out, AvlRecordCursor io) {
        out.put('{');
        boolean first = true;
        while (io.nextIo()) {
            if (!first) {
                out.put(',');
            }
            first = false;
            out.put('"').putNumber(io.ioId()).put('"').put(':');
            if (!io.ioVariable()) {
                out.putUnsigned(io.ioValue());
            } else {
                out.put('"');
                int length = io.ioVariableLength();
                for (int b = 0; b < length; b++) {
                    out.putHex(io.ioVariableByte(b));
                }
                out.put('"');
            }
        }
        return out.put('}');
    }

    private static String pattern(List<String> names) {
        StringBuilder pattern = new StringBuilder(names.size());
        for (String name : names) {
            pattern.append(PACKET_WIDE.contains(EntryField.of(name)) ? 'p' : 'r');
        }
        return pattern.toString();
    }

    private static List<String> keys(List<EntryField> fields) {
        return fields.stream().map(EntryField::key).toList();
    }

    private static byte[][] encode(List<String> names) {
        return names.stream().map(RespArguments::preEncoded).toArray(byte[][]::new);
    }
}
