package org.fleetpipe.teltonika.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.avl.AvlPacketEncoder;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.IoElement;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.codec.command.CommandFrameEncoder;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors.Vector;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class GoldenVectorTest {

    private final TcpFrameReader reader = new TcpFrameReader(DecodeLimits.DEFAULTS);
    private final AvlPacketDecoder avl = new AvlPacketDecoder(DecodeLimits.DEFAULTS);

    static List<Vector> avlVectors() {
        return GoldenVectors.ofKind("avl");
    }

    static List<Vector> commandVectors() {
        return GoldenVectors.ofKind("command");
    }

    @ParameterizedTest
    @MethodSource("avlVectors")
    void avlVector_whenDecoded_thenEveryFieldEqualsExpected(Vector v) {
        AvlPacket packet = decodeAvl(v.bytes());

        JsonNode expected = v.json().get("expected");
        assertThat(packet.codec().label()).isEqualTo(v.codec());
        assertThat(packet.size()).isEqualTo(v.json().get("records").asInt()).isEqualTo(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            assertRecord(packet.codec(), packet.records().get(i), expected.get(i));
        }
    }

    @ParameterizedTest
    @MethodSource("avlVectors")
    void avlVector_whenDecodedAndEncoded_thenBytesAreIdentical(Vector v) {
        AvlPacket packet = decodeAvl(v.bytes());
        ByteBuf out = Unpooled.buffer();
        try {
            AvlPacketEncoder.writeTcpFrame(out, packet);
            assertThat(Hex.of(out)).isEqualTo(v.hex().toUpperCase());
        } finally {
            out.release();
        }
    }

    @ParameterizedTest
    @MethodSource("avlVectors")
    void avlVector_ackIsTheRecordCount(Vector v) {
        ByteBuf out = Unpooled.buffer();
        try {
            Acks.writeRecordCount(out, decodeAvl(v.bytes()).size());
            assertThat(Hex.of(out)).isEqualTo(v.json().get("ack_hex").asText().toUpperCase());
        } finally {
            out.release();
        }
    }

    @ParameterizedTest
    @MethodSource("commandVectors")
    void commandVector_whenEncoded_thenByteForByte(Vector v) {
        String text = v.json().get("command").asText();
        CommandFrame frame = v.codec().equals("14")
                ? CommandFrame.codec14Command(v.json().get("imei").asText(), text)
                : CommandFrame.codec12Command(text);
        ByteBuf out = Unpooled.buffer();
        try {
            CommandFrameEncoder.writeTcpFrame(out, frame);
            assertThat(Hex.of(out)).isEqualTo(v.hex().toUpperCase());
        } finally {
            out.release();
        }
    }

    @ParameterizedTest
    @MethodSource("commandVectors")
    void commandVector_whenFramedAndDecoded_thenSameCommand(Vector v) {
        ByteBuf in = Unpooled.wrappedBuffer(v.bytes());
        try {
            Frame frame = reader.tryRead(in);
            assertThat(frame).isInstanceOf(DataFrame.class);
            DataFrame data = (DataFrame) frame;
            try {
                CommandFrame command = new CommandFrameDecoder(DecodeLimits.DEFAULTS).decode(data.body());
                assertThat(command.codec().label()).isEqualTo(v.codec());
                assertThat(command.type()).isEqualTo(CommandFrame.TYPE_COMMAND);
                assertThat(command.text()).isEqualTo(v.json().get("command").asText());
                assertThat(command.imei()).isEqualTo(v.json().has("imei") ? v.json().get("imei").asText() : null);
            } finally {
                data.release();
            }
        } finally {
            in.release();
        }
    }

    private AvlPacket decodeAvl(byte[] bytes) {
        ByteBuf in = Unpooled.wrappedBuffer(bytes);
        try {
            Frame frame = reader.tryRead(in);
            assertThat(frame).isInstanceOf(DataFrame.class);
            assertThat(in.isReadable()).isFalse();
            DataFrame data = (DataFrame) frame;
            try {
                return avl.decode(data.body());
            } finally {
                data.release();
            }
        } finally {
            in.release();
        }
    }

    private static void assertRecord(CodecId codec, AvlRecord r, JsonNode e) {
        assertThat(e.get("codec").asText()).isEqualTo(codec.label());
        assertThat(r.timestamp()).isEqualTo(e.get("ts").asLong());
        assertThat(r.priority()).isEqualTo(e.get("priority").asInt());
        assertThat(r.gps().latitude() / 1e7).isEqualTo(e.get("lat").asDouble());
        assertThat(r.gps().longitude() / 1e7).isEqualTo(e.get("lon").asDouble());
        assertThat((int) r.gps().altitude()).isEqualTo(e.get("alt").asInt());
        assertThat(r.gps().angle()).isEqualTo(e.get("angle").asInt());
        assertThat(r.gps().satellites()).isEqualTo(e.get("sat").asInt());
        assertThat(r.gps().speed()).isEqualTo(e.get("speed").asInt());
        assertThat(r.eventIoId()).isEqualTo(e.get("event").asInt());
        if (e.has("gen")) {
            assertThat(r.generationType()).isEqualTo(e.get("gen").asInt());
        } else {
            assertThat(r.hasGenerationType()).isFalse();
        }
        Map<String, String> expectedIo = new LinkedHashMap<>();
        e.get("io").fields().forEachRemaining(f -> expectedIo.put(f.getKey(), f.getValue().asText()));
        Map<String, String> actualIo = new LinkedHashMap<>();
        for (IoElement io : r.io()) {
            actualIo.put(Integer.toString(io.id()), io.valueText());
        }
        assertThat(actualIo).isEqualTo(expectedIo);
    }
}
