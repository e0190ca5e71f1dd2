package org.fleetpipe.teltonika.codec.avl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors.Vector;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.fleetpipe.teltonika.codec.testing.ViewedPackets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class AvlRecordCursorTest {

    private final AvlPacketDecoder decoder = new AvlPacketDecoder(DecodeLimits.DEFAULTS);

    static List<Vector> avlVectors() {
        return AvlPacketDecoderTest.avlVectors();
    }

    @ParameterizedTest
    @MethodSource("avlVectors")
    void cursor_whenGoldenVector_thenReadsWhatTheDecoderMakes(Vector v) {
        ByteBuf body = Unpooled.wrappedBuffer(AvlPacketDecoderTest.body(v));

        AvlPacketView view = decoder.view(body);

        assertThat(ViewedPackets.read(view)).isEqualTo(decoder.decode(body));
        assertThat(body.readerIndex()).isZero();
    }

    @Test
    void cursor_whenRandomPackets_thenReadsWhatTheDecoderMakes() {
        RandomAvl random = new RandomAvl(20261125L);
        for (int i = 0; i < 2_000; i++) {
            AvlPacket packet = random.packet();
            AvlPacketView view = decoder.view(Unpooled.wrappedBuffer(RandomAvl.body(packet)));

            assertThat(ViewedPackets.read(view)).as("seed %d, packet %d", random.seed(), i).isEqualTo(packet);
            assertThat(AvlPacketView.of(packet).toPacket()).isEqualTo(packet);
        }
    }

    @Test
    void next_whenIoLeftUnread_thenNextRecordStillReadsRight() {
        AvlPacket packet = new RandomAvl(7).packet(CodecId.CODEC_8E, 20);
        AvlRecordCursor cursor = new AvlRecordCursor().reset(AvlPacketView.of(packet));
        for (AvlRecord expected : packet.records()) {
            assertThat(cursor.next()).isTrue();
            assertThat(cursor.timestamp()).isEqualTo(expected.timestamp());
            if (expected.io().size() > 1) {
                assertThat(cursor.nextIo()).isTrue();
            }
        }
        assertThat(cursor.next()).isFalse();
    }

    @Test
    void view_whenBodyMutated_thenRefusesExactlyWhatDecodeRefuses() {
        RandomAvl random = new RandomAvl(11);
        Random mutations = new Random(12);
        int refused = 0;
        for (int i = 0; i < 3_000; i++) {
            byte[] body = RandomAvl.body(random.packet());
            int cuts = 1 + mutations.nextInt(3);
            for (int c = 0; c < cuts; c++) {
                body[mutations.nextInt(body.length)] = (byte) mutations.nextInt(256);
            }
            if (mutations.nextBoolean()) {
                body = Arrays.copyOf(body, mutations.nextInt(body.length + 1));
            }
            ByteBuf in = Unpooled.wrappedBuffer(body);
            Throwable decodeError = catchThrowable(() -> decoder.decode(in));
            Throwable viewError = catchThrowable(() -> decoder.view(in));
            if (decodeError == null) {
                assertThat(viewError).isNull();
                assertThat(ViewedPackets.read(decoder.view(in))).isEqualTo(decoder.decode(in));
            } else {
                refused++;
                assertThat(decodeError).isInstanceOf(CodecException.class);
                assertThat(viewError).isInstanceOf(CodecException.class).hasMessage(decodeError.getMessage());
            }
        }
        assertThat(refused).isPositive();
    }

    @Test
    void copy_whenTheScratchIsReused_thenCopyUnchanged() {
        AvlPacket packet = new RandomAvl(3).packet(CodecId.CODEC_8, 5);
        AvlScratch scratch = new AvlScratch();
        AvlPacketView copy = decoder.view(Unpooled.wrappedBuffer(RandomAvl.body(packet)), scratch).copy();

        decoder.view(Unpooled.wrappedBuffer(RandomAvl.body(new RandomAvl(4).packet(CodecId.CODEC_8E, 9))), scratch);

        assertThat(ViewedPackets.read(copy)).isEqualTo(packet);
        assertThat(copy.size()).isEqualTo(5);
        assertThat(copy.codec()).isEqualTo(CodecId.CODEC_8);
    }
}
