package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.IoElement;
import org.fleetpipe.teltonika.redis.RespArguments;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** The telemetry stream entry, field by field, against CONTRACT.md. */
class TelemetryEntryMapperTest {

    private static final Imei IMEI = new Imei("356307042441013");
    private static final String INSTANCE = "pod-a-7";
    private static final long TS = 1_560_161_086_000L;
    private static final long RX = 1_700_000_000_123L;

    private final TelemetryEntryMapper mapper = new TelemetryEntryMapper(INSTANCE);

    private static AvlRecord record(int lon, int lat, int generation, List<IoElement> io) {
        return new AvlRecord(TS, 2, new GpsElement(lon, lat, (short) -120, 359, 13, 65535), 239, generation, io);
    }

    /** The record as the server reads it: from its bytes, with a cursor. */
    static AvlRecordCursor cursorAt(CodecId codec, AvlRecord record) {
        AvlRecordCursor cursor = new AvlRecordCursor().reset(AvlPacketView.of(new AvlPacket(codec, List.of(record))));
        assertThat(cursor.next()).isTrue();
        return cursor;
    }

    /**
     * Field, value, field, value... as the script puts them together: the packet's names, each
     * taking the next packet-wide or per-record value as the pattern says.
     */
    private List<String> fields(CodecId codec, AvlRecord record) {
        return fields(mapper, codec, record);
    }

    private static List<String> fields(TelemetryEntryMapper mapper, CodecId codec, AvlRecord record) {
        RespArguments packetValues = new RespArguments(64);
        mapper.appendPacketValues(IMEI, codec, RX, packetValues);
        RespArguments recordValues = new RespArguments(64);
        mapper.appendRecordValues(codec, cursorAt(codec, record), RX, recordValues);
        List<String> names = TelemetryEntryMapper.fieldNames(codec);
        String pattern = TelemetryEntryMapper.valuePattern(codec);
        assertThat(pattern).hasSameSizeAs(names).matches("[pr]+");
        assertThat(packetValues.count() + recordValues.count()).isEqualTo(names.size());
        List<String> flat = new ArrayList<>();
        int p = 0;
        int r = 0;
        for (int i = 0; i < names.size(); i++) {
            flat.add(names.get(i));
            flat.add(pattern.charAt(i) == 'p' ? packetValues.strings().get(p++) : recordValues.strings().get(r++));
        }
        return flat;
    }

    private static Map<String, String> asMap(List<String> flat) {
        assertThat(flat.size() % 2).as("field/value pairs").isZero();
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            assertThat(map.put(flat.get(i), flat.get(i + 1))).as("field %s twice", flat.get(i)).isNull();
        }
        return map;
    }

    @Test
    void appendFields_whenCodec8Record_thenEveryContractFieldInContractOrder() {
        AvlRecord record = record(-123456789, 250000000, AvlRecord.NO_GENERATION,
                List.of(new IoElement.Fixed(21, 1, 3)));

        assertThat(fields(CodecId.CODEC_8, record)).containsExactly(
                "imei", "356307042441013",
                "codec", "8",
                "ts", "1560161086000",
                "rx", "1700000000123",
                "priority", "2",
                "lat", "25",
                "lon", "-12.3456789",
                "alt", "-120",
                "angle", "359",
                "sat", "13",
                "speed", "65535",
                "event", "239",
                "io", "{\"21\":3}",
                "valid", "1",
                "instance", INSTANCE,
                "schema", "2");
    }

    @Test
    void appendValues_whenArgumentsAlreadyHoldOthers_thenAppendsOneValuePerFieldName() {
        RespArguments out = new RespArguments(16).text("earlier").number(42);

        mapper.appendPacketValues(IMEI, CodecId.CODEC_8, RX, out);
        mapper.appendRecordValues(CodecId.CODEC_8, cursorAt(CodecId.CODEC_8, record(0, 0, AvlRecord.NO_GENERATION,
                List.of())), RX, out);

        assertThat(out.strings()).startsWith("earlier", "42").hasSize(2 + 16);
        assertThat(out.count()).isEqualTo(18);
    }

    @ParameterizedTest
    @EnumSource(value = CodecId.class, names = {"CODEC_8", "CODEC_8E", "CODEC_16"})
    void valuePattern_whenEachAvlCodec_thenOnlyDeviceCodecReceiveTimeInstanceAndSchemaArePacketWide(CodecId codec) {
        List<String> names = TelemetryEntryMapper.fieldNames(codec);
        String pattern = TelemetryEntryMapper.valuePattern(codec);
        RespArguments out = new RespArguments(16);

        mapper.appendValuePattern(codec, out);

        assertThat(out.strings()).containsExactly(pattern);
        List<String> packetWide = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            if (pattern.charAt(i) == 'p') {
                packetWide.add(names.get(i));
            }
        }
        assertThat(packetWide).containsExactly("imei", "codec", "rx", "instance", "schema");
    }

    @ParameterizedTest
    @EnumSource(value = CodecId.class, names = {"CODEC_8", "CODEC_8E", "CODEC_16"})
    void appendNames_whenEachAvlCodec_thenTheFieldNamesInOrder(CodecId codec) {
        RespArguments out = new RespArguments(16);

        int added = mapper.appendNames(codec, out);

        assertThat(out.strings()).isEqualTo(TelemetryEntryMapper.fieldNames(codec)).hasSize(added);
    }

    @Test
    void instance_whenTheIdChanges_thenTheNextPacketCarriesTheNewOne() {
        String[] id = {"pod-a-7"};
        TelemetryEntryMapper changing = new TelemetryEntryMapper(() -> id[0]);
        AvlRecord plain = record(0, 0, AvlRecord.NO_GENERATION, List.of());

        List<String> before = fields(changing, CodecId.CODEC_8, plain);
        id[0] = "pod-a-8";
        List<String> after = fields(changing, CodecId.CODEC_8, plain);

        assertThat(asMap(before)).containsEntry("instance", "pod-a-7");
        assertThat(asMap(after)).containsEntry("instance", "pod-a-8");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "-123456789, -12.3456789",
            "250000000, 25",
            "0, 0",
            "1, 0.0000001",
            "-1, -0.0000001",
            "100000000, 10",
            "1800000000, 180",
            "-900000000, -90",
            "547000000, 54.7",
            "2147483647, 214.7483647",
            "-2147483648, -214.7483648"})
    void coordinates_whenFormatted_thenPlainDecimalDegrees(int raw, String expected) {
        Map<String, String> e = asMap(fields(CodecId.CODEC_8, record(raw, raw, AvlRecord.NO_GENERATION, List.of())));

        assertThat(e).contains(entry("lat", expected), entry("lon", expected));
        assertThat(e.get("lat")).doesNotContainIgnoringCase("e");
    }

    @Test
    void codecLabel_whenEachAvlCodec_thenContractLabel() {
        AvlRecord plain = record(0, 0, AvlRecord.NO_GENERATION, List.of());
        AvlRecord withGen = record(0, 0, 5, List.of());

        assertThat(asMap(fields(CodecId.CODEC_8, plain))).containsEntry("codec", "8");
        assertThat(asMap(fields(CodecId.CODEC_8E, plain))).containsEntry("codec", "8E");
        assertThat(asMap(fields(CodecId.CODEC_16, withGen))).containsEntry("codec", "16");
    }

    @Test
    void gen_whenCodec16_thenPresentBetweenEventAndIo() {
        Map<String, String> e = asMap(fields(CodecId.CODEC_16, record(0, 0, 7, List.of())));

        assertThat(e).containsEntry("gen", "7");
        assertThat(e.keySet()).containsSubsequence("event", "gen", "io");
        assertThat(e.keySet()).containsExactly("imei", "codec", "ts", "rx", "priority", "lat", "lon", "alt", "angle",
                "sat", "speed", "event", "gen", "io", "valid", "instance", "schema");
    }

    @Test
    void gen_whenGenerationTypeZeroInCodec16_thenStillWritten() {
        // 0 means "on exit", a real value, not an absent one.
        assertThat(asMap(fields(CodecId.CODEC_16, record(0, 0, 0, List.of())))).containsEntry("gen", "0");
    }

    @Test
    void gen_whenCodec8Or8E_thenAbsent() {
        AvlRecord plain = record(0, 0, AvlRecord.NO_GENERATION, List.of());

        assertThat(asMap(fields(CodecId.CODEC_8, plain))).doesNotContainKey("gen");
        assertThat(asMap(fields(CodecId.CODEC_8E, plain))).doesNotContainKey("gen");
    }

    @Test
    void io_whenEveryWidthAtItsMaximumAndVariableValues_thenUnsignedDecimalsAndLowercaseHex() throws Exception {
        List<IoElement> io = List.of(
                new IoElement.Fixed(1, 1, 0xFF),
                new IoElement.Fixed(2, 2, 0xFFFF),
                new IoElement.Fixed(256, 2, 0),
                new IoElement.Fixed(3, 4, 0xFFFF_FFFFL),
                new IoElement.Fixed(4, 8, 0xFFFF_FFFF_FFFF_FFFFL),
                new IoElement.Fixed(5, 8, Long.MIN_VALUE),
                new IoElement.Variable(65535, new byte[] {0x0A, (byte) 0xBC, (byte) 0xDE, (byte) 0xFF}),
                new IoElement.Variable(7, new byte[0]));

        String json = asMap(fields(CodecId.CODEC_8E, record(0, 0, AvlRecord.NO_GENERATION, io))).get("io");

        assertThat(json).isEqualTo("{\"1\":255,\"2\":65535,\"256\":0,\"3\":4294967295,\"4\":18446744073709551615,"
                + "\"5\":9223372036854775808,\"65535\":\"0abcdeff\",\"7\":\"\"}");
        // And a consumer's JSON parser reads the u64 as the unsigned number, not a negative one.
        JsonNode parsed = new ObjectMapper().readTree(json);
        assertThat(parsed.get("4").bigIntegerValue()).isEqualTo(new BigInteger("18446744073709551615"));
        assertThat(parsed.get("65535").isTextual()).isTrue();
    }

    private static AvlRecord fixed(long ts, int satellites, int lat, int lon) {
        return new AvlRecord(ts, 0, new GpsElement(lon, lat, (short) 100, 90, satellites, 40), 0,
                AvlRecord.NO_GENERATION, List.of());
    }

    /** The entry as the block path writes it: one whole XADD, names and values after the stream and id. */
    private static Map<String, String> xadd(TelemetryEntryMapper mapper, CodecId codec, AvlRecord record) {
        TelemetryEntryMapper.PacketValues packet = mapper.packetValues(
                new TelemetryEntryMapper.PacketValues(RespArguments.preEncoded("telemetry")), codec,
                RespArguments.preEncoded(IMEI.value()), RX);
        RespArguments out = new RespArguments(64);
        mapper.appendXadd(packet, cursorAt(codec, record), out);
        List<String> strings = command(out);
        assertThat(strings.subList(0, 3)).containsExactly("XADD", "telemetry", "*");
        assertThat(strings).hasSize(3 + TelemetryEntryMapper.entryArguments(codec));
        return asMap(strings.subList(3, strings.size()));
    }

    /** One RESP command ({@code *N} and N bulk strings), decoded. */
    private static List<String> command(RespArguments out) {
        ByteBuf bytes = Unpooled.buffer();
        out.copyTo(bytes);
        String resp = bytes.toString(StandardCharsets.UTF_8);
        assertThat(resp).startsWith("*");
        int at = resp.indexOf("\r\n");
        int n = Integer.parseInt(resp.substring(1, at));
        List<String> strings = new ArrayList<>();
        at += 2;
        for (int i = 0; i < n; i++) {
            assertThat(resp.charAt(at)).isEqualTo('$');
            int lineEnd = resp.indexOf("\r\n", at);
            int size = Integer.parseInt(resp.substring(at + 1, lineEnd));
            strings.add(resp.substring(lineEnd + 2, lineEnd + 2 + size));
            at = lineEnd + 2 + size + 2;
        }
        assertThat(at).as("one command, nothing after it").isEqualTo(resp.length());
        return strings;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "a fix and a plausible clock, 1700000000000, 9, 546872383, 252800000, 1",
            "no satellites at 0/0, 1700000000000, 0, 0, 0, 0",
            "latitude out of range, 1700000000000, 9, 900000001, 252800000, 0",
            "longitude out of range, 1700000000000, 9, 546872383, -1800000001, 0",
            "10 minutes ahead of rx, 1700000600123, 9, 546872383, 252800000, 1",
            "10 minutes and 1 ms ahead of rx, 1700000600124, 9, 546872383, 252800000, 0",
            "1 ms before 2010, 1262303999999, 9, 546872383, 252800000, 0",
            "a clock reset to 1970, 0, 0, 0, 0, 0"})
    void valid_whenEachReason_thenBothPathsWriteTheSameValue(String why, long ts, int satellites, int lat, int lon,
                                                             String valid) {
        AvlRecord record = fixed(ts, satellites, lat, lon);

        Map<String, String> script = asMap(fields(CodecId.CODEC_8E, record));
        Map<String, String> block = xadd(mapper, CodecId.CODEC_8E, record);

        assertThat(script).containsEntry("valid", valid).containsEntry("schema", "2");
        assertThat(block).isEqualTo(script);
    }

    @Test
    void valid_whenCodec16_thenAfterIoAndGen() {
        Map<String, String> e = xadd(mapper, CodecId.CODEC_16, record(0, 0, 3, List.of()));

        assertThat(e.keySet()).containsExactly("imei", "codec", "ts", "rx", "priority", "lat", "lon", "alt", "angle",
                "sat", "speed", "event", "gen", "io", "valid", "instance", "schema");
        assertThat(e).containsEntry("valid", "1");
    }

    @Test
    void validity_whenRecordsAreEncoded_thenEachIsToldWithItsSkewOnBothPaths() {
        List<String> seen = new ArrayList<>();
        TelemetryEntryMapper observed = new TelemetryEntryMapper(() -> INSTANCE, new RecordValidity(
                java.time.Duration.ofMinutes(10), (invalid, skew) -> seen.add(invalid + " " + (long) skew)));

        fields(observed, CodecId.CODEC_8, fixed(RX - 2_000, 9, 1, 1));
        xadd(observed, CodecId.CODEC_8, fixed(RX + 700_000, 9, 1, 1));
        xadd(observed, CodecId.CODEC_8, fixed(RX, 0, 0, 0));

        assertThat(seen).containsExactly("null 2000", "CLOCK_FUTURE -700000", "NO_FIX 0");
    }

    @Test
    void io_whenNoElements_thenEmptyObject() {
        assertThat(asMap(fields(CodecId.CODEC_8, record(0, 0, AvlRecord.NO_GENERATION, List.of()))))
                .containsEntry("io", "{}");
    }
}
