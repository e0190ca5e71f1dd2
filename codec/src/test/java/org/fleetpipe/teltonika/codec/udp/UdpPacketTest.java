package org.fleetpipe.teltonika.codec.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.fleetpipe.teltonika.codec.testing.Rejections.assertRejected;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.function.Consumer;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.CodecException.Reason;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.IoElement;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.junit.jupiter.api.Test;

class UdpPacketTest {

    private static final long SEED = 0x0DD9L;
    private static final String IMEI = "352093081452251";

    /** The body of the wiki's codec8-example-1 in a UDP channel header. */
    static final String DATAGRAM = """
            004B              # length 75: everything after this field
            CAFE              # packet id
            01                # not used
            05                # AVL packet id
            000F              # IMEI length 15
            333532303933303831343532323531  # "352093081452251"
            08 01             # codec 8, number of data 1
            0000016B40D8EA30 01 00000000 00000000 0000 0000 00 0000  # timestamp, priority, GPS
            01 05             # event IO id 1, total IO count 5
            02 1503 0101      # N1: id 21 = 3, id 1 = 1
            01 425E0F         # N2: id 66 = 24079
            01 F10000601A     # N4: id 241 = 24602
            01 4E0000000000000000  # N8: id 78 = 0
            01                # number of data 2; no CRC over UDP
            """;

    private final UdpPacketDecoder decoder = new UdpPacketDecoder(DecodeLimits.DEFAULTS);

    @Test
    void decode_whenHandBuiltDatagramAroundWikiBody_thenHeaderAndSamePacketAsTcp() {
        withDatagram(DATAGRAM, in -> {
            UdpPacket udp = decoder.decode(in);

            assertThat(udp.packetId()).isEqualTo(0xCAFE);
            assertThat(udp.avlPacketId()).isEqualTo(5);
            assertThat(udp.imeiText()).isEqualTo(IMEI);
            assertThat(udp.packet()).isEqualTo(wikiPacket());
            assertThat(in.readerIndex()).isZero();
        });
    }

    @Test
    void writeDatagram_whenWikiPacket_thenHandBuiltBytes() {
        ByteBuf out = Unpooled.buffer();
        try {
            UdpPacketEncoder.writeDatagram(out, new UdpPacket(0xCAFE, 5, IMEI, wikiPacket()));

            assertThat(Hex.of(out)).isEqualTo(Hex.of(Hex.bytes(DATAGRAM)));
        } finally {
            out.release();
        }
    }

    @Test
    void writeDatagram_whenRandomPackets_thenDecodeGivesThemBack() {
        RandomAvl random = new RandomAvl(SEED).maxRecords(10);
        UdpPacketDecoder roomy = new UdpPacketDecoder(DecodeLimits.DEFAULTS.withMaxFrameBytes(0xFFFF + 2));
        for (int i = 0; i < 600; i++) {
            UdpPacket sent = new UdpPacket(random.random().nextInt(0x10000), random.random().nextInt(0x100),
                    String.format("%015d", random.random().nextLong(1_000_000_000_000_000L)), random.packet());
            ByteBuf out = Unpooled.buffer();
            try {
                UdpPacketEncoder.writeDatagram(out, sent);

                assertThat(roomy.decode(out)).as("seed %d datagram %d", SEED, i).isEqualTo(sent);
            } finally {
                out.release();
            }
        }
    }

    @Test
    void decode_whenLengthFieldLargerThanDatagram_thenTruncated() {
        withDatagram(DATAGRAM.replaceFirst("004B", "004C"), in -> assertRejected(Reason.TRUNCATED, in, decoder::decode));
        withDatagram(DATAGRAM.replaceFirst("004B", "FFFF"), in -> assertRejected(Reason.TRUNCATED, in, decoder::decode));
    }

    @Test
    void decode_whenLengthFieldSmallerThanDatagram_thenTrailingBytes() {
        withDatagram(DATAGRAM.replaceFirst("004B", "004A"),
                in -> assertRejected(Reason.TRAILING_BYTES, in, decoder::decode));
        withDatagram(DATAGRAM.replaceFirst("004B", "0000"),
                in -> assertRejected(Reason.TRAILING_BYTES, in, decoder::decode));
    }

    @Test
    void decode_whenImeiLengthZero_thenBadLogin() {
        withDatagram("0009 CAFE 01 05 0000 080000",
                in -> assertRejected(Reason.BAD_LOGIN, in, decoder::decode));
    }

    @Test
    void decode_whenImeiLengthOverLimit_thenBadLogin() {
        // 65 declared, 65 present: refused on the limit (64), not on the bytes.
        String imei65 = "33".repeat(65);
        withDatagram("004A CAFE 01 05 0041 " + imei65 + " 080000",
                in -> assertRejected(Reason.BAD_LOGIN, in, decoder::decode));
        UdpPacketDecoder strict = new UdpPacketDecoder(new DecodeLimits(16 * 1024, 255, 512, 4096, 15));
        withDatagram(DATAGRAM.replace("000F              # IMEI", "0010 # IMEI"),
                in -> assertRejected(Reason.BAD_LOGIN, in, strict::decode));
    }

    @Test
    void decode_whenImeiRunsPastDatagram_thenTruncated() {
        withDatagram("0008 CAFE 01 05 0040 3335", in -> assertRejected(Reason.TRUNCATED, in, decoder::decode));
    }

    @Test
    void decode_whenDatagramOverMaxFrameBytes_thenFrameTooLarge() {
        int length = Hex.bytes(DATAGRAM).length;
        UdpPacketDecoder exact = new UdpPacketDecoder(DecodeLimits.DEFAULTS.withMaxFrameBytes(length));
        UdpPacketDecoder tooSmall = new UdpPacketDecoder(DecodeLimits.DEFAULTS.withMaxFrameBytes(length - 1));

        withDatagram(DATAGRAM, in -> assertThat(exact.decode(in).packet().size()).isEqualTo(1));
        withDatagram(DATAGRAM, in -> assertRejected(Reason.FRAME_TOO_LARGE, in, tooSmall::decode));
    }

    @Test
    void decode_whenShorterThanHeader_thenTruncated() {
        for (String hex : List.of("", "00", "0005 CAFE 01 05 00")) {
            withDatagram(hex, in -> assertRejected(Reason.TRUNCATED, in, decoder::decode));
        }
    }

    @Test
    void decode_whenBodyIsBad_thenAvlReasonPropagates() {
        withDatagram(DATAGRAM.replace("01                # number of data 2", "02 #"),
                in -> assertRejected(Reason.RECORD_COUNT_MISMATCH, in, decoder::decode));
    }

    @Test
    void peekHeader_whenBodyIsGarbage_thenHeaderStillReadableForTheAck() {
        // The server still ACKs (0 records) a datagram it cannot decode, so the device stops resending.
        String garbage = "0021 1234 01 7F 000F 333532303933303831343532323531 DEADBEEF00112233445566778899";
        withDatagram(garbage, in -> {
            Throwable thrown = catchThrowable(() -> decoder.decode(in));
            assertThat(thrown).isInstanceOf(CodecException.class);

            UdpPacketDecoder.UdpHeader header = UdpPacketDecoder.peekHeader(in);

            assertThat(header).isEqualTo(new UdpPacketDecoder.UdpHeader(0x1234, 0x7F, IMEI));
            assertThat(in.readerIndex()).isZero();
        });
    }

    @Test
    void peekHeader_whenImeiLengthPastEnd_thenIdsWithoutImei() {
        withDatagram("0008 ABCD 01 FF 0040 3335", in -> assertThat(UdpPacketDecoder.peekHeader(in))
                .isEqualTo(new UdpPacketDecoder.UdpHeader(0xABCD, 0xFF, null)));
    }

    @Test
    void peekHeader_whenShorterThanHeader_thenNull() {
        withDatagram("0005 CAFE 01 05 00", in -> assertThat(UdpPacketDecoder.peekHeader(in)).isNull());
    }

    @Test
    void ack_whenWritten_thenExactlyLengthPacketIdOneAvlPacketIdCount() {
        ByteBuf out = Unpooled.buffer();
        try {
            new UdpAck(0xCAFE, 0x05, 1).writeTo(out);

            assertThat(Hex.of(out)).isEqualTo("0005CAFE010501");
            assertThat(out.readableBytes()).isEqualTo(UdpAck.BYTES);
        } finally {
            out.release();
        }
    }

    @Test
    void ack_whenWrittenAndRead_thenSameAckWithUnsignedFields() {
        for (UdpAck ack : List.of(new UdpAck(0, 0, 0), new UdpAck(0xFFFF, 0xFF, 0xFF), new UdpAck(0x8001, 0x80, 0x7F))) {
            ByteBuf out = Unpooled.buffer();
            try {
                ack.writeTo(out);

                assertThat(UdpAck.read(out)).isEqualTo(ack);
                assertThat(out.readerIndex()).isZero();
            } finally {
                out.release();
            }
        }
    }

    @Test
    void ack_whenBytesAreNotAnAck_thenReadReturnsNull() {
        for (String hex : List.of("", "0005CAFE0105", "0005CAFE01050100", "0006CAFE010501", "0004CAFE010501")) {
            withDatagram(hex, in -> assertThat(UdpAck.read(in)).as(hex).isNull());
        }
    }

    @Test
    void writeDatagram_whenLongerThanTheLengthFieldCanSay_thenIllegalArgument() {
        // 8E record with one NX value sized so the datagram is 65539 bytes: length field would be 65537.
        int nxBytes = 65539 - 8 - IMEI.length() - 3 - 38 - 4;
        AvlRecord record = new AvlRecord(0, 0, GpsElement.EMPTY, 0,
                AvlRecord.NO_GENERATION, List.of(new IoElement.Variable(1,
                        new byte[nxBytes])));
        UdpPacket huge = new UdpPacket(1, 1, IMEI, new AvlPacket(CodecId.CODEC_8E, List.of(record)));
        ByteBuf out = Unpooled.buffer();
        try {
            assertThatThrownBy(() -> UdpPacketEncoder.writeDatagram(out, huge))
                    .isInstanceOf(IllegalArgumentException.class);
        } finally {
            out.release();
        }
    }

    private static AvlPacket wikiPacket() {
        byte[] frame = GoldenVectors.ofKind("avl").get(0).bytes();
        ByteBuf body = Unpooled.wrappedBuffer(frame, 8, frame.length - 12);
        try {
            return new AvlPacketDecoder(DecodeLimits.DEFAULTS).decode(body);
        } finally {
            body.release();
        }
    }

    private static void withDatagram(String hex, Consumer<ByteBuf> test) {
        byte[] bytes = Hex.bytes(hex);
        ByteBuf in = PooledByteBufAllocator.DEFAULT.buffer(Math.max(1, bytes.length)).writeBytes(bytes);
        try {
            test.accept(in);
        } finally {
            in.release();
        }
    }
}
