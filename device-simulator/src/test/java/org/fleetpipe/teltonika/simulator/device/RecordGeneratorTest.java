package org.fleetpipe.teltonika.simulator.device;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketDecoder;
import org.fleetpipe.teltonika.codec.avl.AvlPacketEncoder;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.IoElement;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.fleetpipe.teltonika.codec.frame.TcpFrameWriter;
import org.fleetpipe.teltonika.codec.udp.UdpPacket;
import org.fleetpipe.teltonika.codec.udp.UdpPacketDecoder;
import org.fleetpipe.teltonika.codec.udp.UdpPacketEncoder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class RecordGeneratorTest {

    private static final Duration SECOND = Duration.ofSeconds(1);
    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);

    private RecordGenerator generator(CodecId codec) {
        return new RecordGenerator(codec, Route.vilniusLoop(), 0, 42, clock::get);
    }

    @ParameterizedTest
    @EnumSource(value = CodecId.class, names = {"CODEC_8", "CODEC_8E", "CODEC_16"})
    void packets_whenEncodedAsTcpFrames_thenTheServersFramerAndDecoderReadThemBack(CodecId codec) {
        RecordGenerator generator = generator(codec);
        TcpFrameReader framer = new TcpFrameReader(DecodeLimits.DEFAULTS);
        AvlPacketDecoder decoder = new AvlPacketDecoder(DecodeLimits.DEFAULTS);
        for (int i = 0; i < 40; i++) {
            clock.addAndGet(1000);
            AvlPacket packet = new AvlPacket(codec, generator.next(5, SECOND));
            ByteBuf bytes = AvlPacketEncoder.writeTcpFrame(Unpooled.buffer(), packet);
            try {
                DataFrame frame = (DataFrame) framer.tryRead(bytes);
                try {
                    assertThat(frame.codec()).isEqualTo(codec);
                    assertThat(decoder.decode(frame.body())).isEqualTo(packet);
                    assertThat(frame.bodyLength()).isEqualTo(EncodedSize.body(codec, packet.records()));
                } finally {
                    frame.release();
                }
                assertThat(bytes.isReadable()).isFalse();
            } finally {
                bytes.release();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CodecId.class, names = {"CODEC_8", "CODEC_8E", "CODEC_16"})
    void packets_whenSentAsUdpDatagrams_thenTheServersDecoderReadsThemBack(CodecId codec) {
        String imei = new ImeiSequence(ImeiSequence.DEFAULT_BASE).imei(7);
        AvlPacket packet = new AvlPacket(codec, generator(codec).next(5, SECOND));
        ByteBuf datagram = UdpPacketEncoder.writeDatagram(Unpooled.buffer(), new UdpPacket(513, 7, imei, packet));
        try {
            UdpPacket decoded = new UdpPacketDecoder(DecodeLimits.DEFAULTS).decode(datagram);
            assertThat(decoded).isEqualTo(new UdpPacket(513, 7, imei, packet));
            assertThat(Imei.parse(decoded.imeiText(), true).value()).isEqualTo(imei);
            assertThat(datagram.readableBytes())
                    .isEqualTo(EncodedSize.udpHeader(imei) + EncodedSize.body(codec, packet.records()));
        } finally {
            datagram.release();
        }
    }

    @ParameterizedTest
    @EnumSource(value = CodecId.class, names = {"CODEC_8", "CODEC_8E", "CODEC_16"})
    void next_intoABacklog_thenItsFramesAreWhatTheCodecsEncoderWritesForFreshRecords(CodecId codec) {
        // As TcpDevice frames a packet: the records' bytes as generated, between header and CRC.
        RecordGenerator generator = generator(codec);
        RecordBacklog backlog = new RecordBacklog(100);
        TcpFrameReader framer = new TcpFrameReader(DecodeLimits.DEFAULTS);
        AvlPacketDecoder decoder = new AvlPacketDecoder(DecodeLimits.DEFAULTS);
        long previous = 0;
        for (int i = 0; i < 60; i++) {
            clock.addAndGet(i % 2 == 0 ? 1000 : 0);
            assertThat(generator.next(10, SECOND, backlog)).isEqualTo(10);
            assertThat(backlog.take(10, Integer.MAX_VALUE)).isEqualTo(10);
            ByteBuf frame = Unpooled.buffer();
            int start = TcpFrameWriter.begin(frame);
            backlog.writeInFlightBody(frame, codec);
            TcpFrameWriter.end(frame, start);
            assertThat(frame.readableBytes()).isEqualTo(backlog.inFlightBodyBytes() + EncodedSize.TCP_FRAME_OVERHEAD);
            ByteBuf canonical = Unpooled.buffer();
            DataFrame read = (DataFrame) framer.tryRead(frame.duplicate());   // checks the CRC
            try {
                AvlPacket packet = decoder.decode(read.body());
                assertThat(packet.codec()).isEqualTo(codec);
                assertThat(packet.records()).hasSize(10);
                for (AvlRecord r : packet.records()) {
                    assertThat(r.timestamp()).as("every record a new one").isGreaterThan(previous);
                    previous = r.timestamp();
                }
                AvlPacketEncoder.writeTcpFrame(canonical, packet);
                assertThat(ByteBufUtil.equals(frame, canonical)).as("same bytes as the codec's encoder").isTrue();
            } finally {
                read.release();
                frame.release();
                canonical.release();
            }
            backlog.acknowledge();
        }
    }

    @Test
    void records_carryTheIoElementsOfAnFmbTracker() {
        AvlRecord record = generator(CodecId.CODEC_8).next(1, SECOND).get(0);
        assertThat(record.io()).extracting(IoElement::id)
                .contains(RecordGenerator.IO_IGNITION, RecordGenerator.IO_MOVEMENT, RecordGenerator.IO_EXTERNAL_VOLTAGE,
                        RecordGenerator.IO_TOTAL_ODOMETER, RecordGenerator.IO_ICCID1);
        assertThat(fixed(record, RecordGenerator.IO_IGNITION).width()).isEqualTo(1);
        assertThat(fixed(record, RecordGenerator.IO_MOVEMENT).width()).isEqualTo(1);
        assertThat(fixed(record, RecordGenerator.IO_EXTERNAL_VOLTAGE).width()).isEqualTo(2);
        assertThat(fixed(record, RecordGenerator.IO_EXTERNAL_VOLTAGE).value()).isBetween(12_000L, 14_500L);
        assertThat(fixed(record, RecordGenerator.IO_TOTAL_ODOMETER).width()).isEqualTo(4);
        assertThat(fixed(record, RecordGenerator.IO_ICCID1).width()).isEqualTo(8);
        assertThat(record.hasGenerationType()).isFalse();
    }

    @Test
    void records_ofCodec8E_nowAndThenCarryALargeVariableLengthElement() {
        RecordGenerator generator = generator(CodecId.CODEC_8E);
        List<IoElement.Variable> variables = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            for (AvlRecord r : generator.next(5, SECOND)) {
                r.io().stream().filter(IoElement.Variable.class::isInstance).map(IoElement.Variable.class::cast)
                        .forEach(variables::add);
            }
        }
        assertThat(variables).isNotEmpty().hasSizeLessThan(100);
        assertThat(variables).allSatisfy(v -> {
            assertThat(v.id()).isEqualTo(RecordGenerator.IO_BEACONS);
            assertThat(v.length()).isBetween(256, RecordGenerator.MAX_BEACON_BYTES);
        });
    }

    @Test
    void records_ofCodec16_carryAGenerationType() {
        List<AvlRecord> records = new ArrayList<>();
        RecordGenerator generator = generator(CodecId.CODEC_16);
        for (int i = 0; i < 200; i++) {
            records.addAll(generator.next(5, SECOND));
        }
        assertThat(records).allSatisfy(r -> assertThat(r.generationType())
                .isIn(RecordGenerator.GENERATION_ON_CHANGE, RecordGenerator.GENERATION_PERIODICAL));
        // Somewhere in 1000 records the ignition changes: an event record "on change".
        assertThat(records).anySatisfy(r -> {
            assertThat(r.eventIoId()).isEqualTo(RecordGenerator.IO_IGNITION);
            assertThat(r.generationType()).isEqualTo(RecordGenerator.GENERATION_ON_CHANGE);
        });
    }

    @Test
    void next_whenCalledFasterThanThePeriod_thenTimestampsStillStrictlyIncrease() {
        RecordGenerator generator = generator(CodecId.CODEC_8);
        long previous = 0;
        for (int i = 0; i < 20; i++) {
            for (AvlRecord r : generator.next(10, SECOND)) {
                assertThat(r.timestamp()).isGreaterThan(previous);
                previous = r.timestamp();
            }
        }
    }

    @Test
    void next_whileDriving_thenTheVehicleMovesAndTheOdometerGrows() {
        RecordGenerator generator = generator(CodecId.CODEC_8);
        AvlRecord first = generator.next(1, SECOND).get(0);
        clock.addAndGet(10_000);
        AvlRecord later = generator.next(10, Duration.ofSeconds(10)).get(9);
        assertThat(later.gps().speed()).isPositive();
        assertThat(fixed(later, RecordGenerator.IO_IGNITION).value()).isEqualTo(1);
        assertThat(fixed(later, RecordGenerator.IO_MOVEMENT).value()).isEqualTo(1);
        assertThat(later.gps().latitude() != first.gps().latitude()
                || later.gps().longitude() != first.gps().longitude()).isTrue();
        assertThat(fixed(later, RecordGenerator.IO_TOTAL_ODOMETER).value())
                .isGreaterThan(fixed(first, RecordGenerator.IO_TOTAL_ODOMETER).value());
        assertThat(later.gps().satellites()).isBetween(7, 14);
    }

    private static IoElement.Fixed fixed(AvlRecord record, int id) {
        return record.io().stream().filter(e -> e.id() == id).map(IoElement.Fixed.class::cast).findFirst()
                .orElseThrow();
    }
}
