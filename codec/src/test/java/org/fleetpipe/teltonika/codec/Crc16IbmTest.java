package org.fleetpipe.teltonika.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors.Vector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class Crc16IbmTest {

    private static final long SEED = 0xC3C16L;

    /** The catalogue check value of CRC-16/ARC: it pins polynomial, reflection, init and xor-out at once. */
    private static final byte[] CHECK_INPUT = "123456789".getBytes(StandardCharsets.US_ASCII);
    private static final int CHECK_VALUE = 0xBB3D;

    static List<Vector> vectors() {
        return GoldenVectors.all();
    }

    @Test
    void compute_whenCheckStringAsArray_thenBB3D() {
        assertThat(Crc16Ibm.compute(CHECK_INPUT, 0, CHECK_INPUT.length)).isEqualTo(CHECK_VALUE);
    }

    @Test
    void compute_whenCheckStringInLeakTrackedBuffer_thenBB3DAndIndicesUntouched() {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.buffer();
        try {
            buf.writeBytes(CHECK_INPUT);

            assertThat(Crc16Ibm.compute(buf, 0, CHECK_INPUT.length)).isEqualTo(CHECK_VALUE);
            assertThat(buf.readerIndex()).isZero();
            assertThat(buf.writerIndex()).isEqualTo(CHECK_INPUT.length);
        } finally {
            buf.release();
        }
    }

    @Test
    void compute_whenEmptyRange_thenInitialValueZero() {
        ByteBuf buf = Unpooled.wrappedBuffer(CHECK_INPUT);
        try {
            assertThat(Crc16Ibm.compute(new byte[0], 0, 0)).isZero();
            assertThat(Crc16Ibm.compute(buf, 3, 0)).isZero();
        } finally {
            buf.release();
        }
    }

    @Test
    void compute_whenIndexIsAbsolute_thenReaderIndexIgnored() {
        // Padding in front and a moved readerIndex: the frame reader passes absolute indices.
        ByteBuf buf = Unpooled.buffer();
        try {
            buf.writeBytes(new byte[] {0x55, 0x66, 0x77}).writeBytes(CHECK_INPUT).writeByte(0x11);
            buf.readerIndex(1);

            assertThat(Crc16Ibm.compute(buf, 3, CHECK_INPUT.length)).isEqualTo(CHECK_VALUE);
            assertThat(buf.readerIndex()).isEqualTo(1);
        } finally {
            buf.release();
        }
    }

    @Test
    void compute_whenArrayRegion_thenOnlyThatRegion() {
        byte[] padded = new byte[CHECK_INPUT.length + 5];
        padded[0] = (byte) 0xAA;
        padded[1] = (byte) 0xBB;
        System.arraycopy(CHECK_INPUT, 0, padded, 2, CHECK_INPUT.length);
        padded[padded.length - 1] = (byte) 0xCC;

        assertThat(Crc16Ibm.compute(padded, 2, CHECK_INPUT.length)).isEqualTo(CHECK_VALUE);
    }

    @Test
    void compute_whenRandomRegions_thenByteBufAndArrayVariantsAgree() {
        Random random = new Random(SEED);
        for (int i = 0; i < 500; i++) {
            byte[] data = new byte[random.nextInt(1, 600)];
            random.nextBytes(data);
            int offset = random.nextInt(data.length);
            int length = random.nextInt(data.length - offset + 1);
            // Heap and direct: the buffer variant reads eight bytes at a time, through different code.
            ByteBuf heap = Unpooled.wrappedBuffer(data);
            ByteBuf direct = Unpooled.directBuffer(data.length).writeBytes(data);
            try {
                int fromArray = Crc16Ibm.compute(data, offset, length);
                assertThat(Crc16Ibm.compute(heap, offset, length))
                        .as("seed %d iteration %d offset %d length %d", SEED, i, offset, length)
                        .isEqualTo(fromArray)
                        .isBetween(0, 0xFFFF);
                assertThat(Crc16Ibm.compute(direct, offset, length)).isEqualTo(fromArray);
            } finally {
                heap.release();
                direct.release();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("vectors")
    void compute_whenGoldenVectorBody_thenEqualsItsCrcField(Vector v) {
        byte[] frame = v.bytes();
        int bodyLength = frame.length - 12;
        int crcField = ((frame[frame.length - 2] & 0xFF) << 8) | (frame[frame.length - 1] & 0xFF);

        assertThat(Crc16Ibm.compute(frame, 8, bodyLength)).isEqualTo(crcField);
    }
}
