package org.fleetpipe.teltonika.codec.avl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.junit.jupiter.api.Test;

/** The encoder refuses records its codec cannot carry, rather than writing a frame that decodes differently. */
class AvlPacketEncoderTest {

    private static final GpsElement GPS = GpsElement.EMPTY;

    @Test
    void writeBody_whenCodec8IoIdOver255_thenIllegalArgument() {
        AvlPacket packet = packet(CodecId.CODEC_8, record(0, AvlRecord.NO_GENERATION, new IoElement.Fixed(256, 1, 0)));

        assertThatThrownBy(() -> write(packet)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void writeBody_whenCodec8EventIdOver255_thenIllegalArgument() {
        AvlPacket packet = packet(CodecId.CODEC_8, record(256, AvlRecord.NO_GENERATION));

        assertThatThrownBy(() -> write(packet)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void writeBody_whenVariableIoOutsideCodec8E_thenIllegalArgument() {
        IoElement nx = new IoElement.Variable(1, new byte[] {1});

        assertThatThrownBy(() -> write(packet(CodecId.CODEC_8, record(0, AvlRecord.NO_GENERATION, nx))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> write(packet(CodecId.CODEC_16, record(0, 5, nx))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void writeBody_whenGenerationTypePresenceDoesNotMatchCodec_thenIllegalArgument() {
        assertThatThrownBy(() -> write(packet(CodecId.CODEC_8, record(0, 5))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> write(packet(CodecId.CODEC_16, record(0, AvlRecord.NO_GENERATION))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void writeBody_whenMoreThan255IoInOneByteCount_thenIllegalArgument() {
        List<IoElement> io = new ArrayList<>();
        for (int id = 0; id < 256; id++) {
            io.add(new IoElement.Fixed(id, 1, 0));
        }
        AvlRecord r = new AvlRecord(0, 0, GPS, 0, AvlRecord.NO_GENERATION, io);

        assertThatThrownBy(() -> write(packet(CodecId.CODEC_8, r))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void writeBody_whenMoreThan255Records_thenIllegalArgument() {
        AvlRecord r = record(0, AvlRecord.NO_GENERATION);

        assertThatThrownBy(() -> write(new AvlPacket(CodecId.CODEC_8, Collections.nCopies(256, r))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void writeBody_whenIoGivenOutOfWireOrder_thenWrittenGroupedByWidth() {
        // Wire order is by width; the decoder returns that order, whatever order the record was built in.
        AvlRecord r = record(0, AvlRecord.NO_GENERATION, new IoElement.Fixed(9, 8, 1), new IoElement.Fixed(7, 1, 2),
                new IoElement.Fixed(8, 2, 3));

        assertThat(write(packet(CodecId.CODEC_8, r))).isEqualTo(Hex.of(Hex.bytes("""
                08 01
                0000000000000000 00 00000000 00000000 0000 0000 00 0000  # timestamp, priority, GPS
                00 03                # event id, total
                01 07 02             # N1
                01 08 0003           # N2
                00                   # N4
                01 09 0000000000000001  # N8
                01
                """)));
    }

    private static String write(AvlPacket packet) {
        ByteBuf out = Unpooled.buffer();
        try {
            return Hex.of(AvlPacketEncoder.writeBody(out, packet));
        } finally {
            out.release();
        }
    }

    private static AvlPacket packet(CodecId codec, AvlRecord record) {
        return new AvlPacket(codec, List.of(record));
    }

    private static AvlRecord record(int eventId, int generation, IoElement... io) {
        return new AvlRecord(0, 0, GPS, eventId, generation, List.of(io));
    }
}
