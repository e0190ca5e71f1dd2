package org.fleetpipe.teltonika.codec.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.IoElement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The generator behind the property tests: if it never made an edge case, those tests prove nothing about it. */
class RandomAvlTest {

    private static final long SEED = 42L;

    @Test
    void packet_whenSameSeed_thenSamePackets() {
        RandomAvl a = new RandomAvl(SEED);
        RandomAvl b = new RandomAvl(SEED);
        for (int i = 0; i < 20; i++) {
            assertThat(a.packet()).isEqualTo(b.packet());
        }
        assertThat(new RandomAvl(SEED + 1).packet(CodecId.CODEC_8E)).isNotEqualTo(new RandomAvl(SEED).packet(CodecId.CODEC_8E));
    }

    @ParameterizedTest
    @EnumSource(value = CodecId.class, names = {"CODEC_8", "CODEC_8E", "CODEC_16"})
    void packet_whenManyDrawn_thenWidthsRespectedAndEdgesReached(CodecId codec) {
        RandomAvl random = new RandomAvl(SEED);
        Set<Integer> recordCounts = new HashSet<>();
        Set<Integer> generations = new HashSet<>();
        Set<Integer> nxLengths = new HashSet<>();
        boolean negativeLon = false;
        boolean negativeLat = false;
        boolean negativeAlt = false;
        boolean u64TopBit = false;
        boolean emptyIo = false;
        int maxId = 0;
        for (int i = 0; i < 500; i++) {
            AvlPacket packet = random.packet(codec);
            assertThat(packet.codec()).isEqualTo(codec);
            recordCounts.add(packet.size());
            for (AvlRecord r : packet.records()) {
                negativeLon |= r.gps().longitude() < 0;
                negativeLat |= r.gps().latitude() < 0;
                negativeAlt |= r.gps().altitude() < 0;
                emptyIo |= r.io().isEmpty();
                generations.add(r.generationType());
                assertThat(r.eventIoId()).isLessThanOrEqualTo(codec == CodecId.CODEC_8 ? 0xFF : 0xFFFF);
                List<Integer> ids = new ArrayList<>();
                int lastWidth = 1;
                for (IoElement io : r.io()) {
                    ids.add(io.id());
                    maxId = Math.max(maxId, io.id());
                    int width = io instanceof IoElement.Fixed f ? f.width() : 16;
                    assertThat(width).as("wire order").isGreaterThanOrEqualTo(lastWidth);
                    lastWidth = width;
                    if (io instanceof IoElement.Fixed f && f.width() == 8 && f.value() < 0) {
                        u64TopBit = true;
                    }
                    if (io instanceof IoElement.Variable v) {
                        nxLengths.add(v.length());
                    }
                }
                assertThat(ids).as("unique ids in a record").doesNotHaveDuplicates();
            }
            // Encodable means every width fits.
            assertThat(RandomAvl.tcpFrame(packet)).isNotEmpty();
        }

        assertThat(recordCounts).contains(1, 50).allMatch(n -> n >= 1 && n <= 50);
        assertThat(negativeLon && negativeLat && negativeAlt && u64TopBit && emptyIo).isTrue();
        switch (codec) {
            case CODEC_8 -> {
                assertThat(maxId).isLessThanOrEqualTo(0xFF).isGreaterThan(0xF0);
                assertThat(generations).containsExactly(AvlRecord.NO_GENERATION);
                assertThat(nxLengths).isEmpty();
            }
            case CODEC_8E -> {
                assertThat(maxId).isGreaterThan(0xFF);
                assertThat(generations).containsExactly(AvlRecord.NO_GENERATION);
                assertThat(nxLengths).contains(0, 1, 300).allMatch(n -> n <= 300);
            }
            default -> {
                assertThat(maxId).isGreaterThan(0xFF);
                assertThat(generations).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
                assertThat(nxLengths).isEmpty();
            }
        }
    }

    @Test
    void realistic_whenDrawn_thenPlausibleDeviceValues() {
        RandomAvl random = new RandomAvl(SEED).realistic();
        for (int i = 0; i < 200; i++) {
            for (AvlRecord r : random.packet().records()) {
                assertThat(r.gps().longitude()).isBetween(-1_800_000_000, 1_800_000_000);
                assertThat(r.gps().latitude()).isBetween(-900_000_000, 900_000_000);
                assertThat(r.gps().angle()).isLessThan(360);
                assertThat(r.priority()).isBetween(0, 2);
                assertThat(r.timestamp()).isBetween(1_420_070_400_000L, 2_051_222_400_000L);
            }
        }
    }

    @Test
    void maxRecords_whenSet_thenPacketsStayWithin() {
        RandomAvl random = new RandomAvl(SEED).maxRecords(3).maxPerGroup(1).maxVariable(1, 10);
        for (int i = 0; i < 100; i++) {
            AvlPacket packet = random.packet(CodecId.CODEC_8E);
            assertThat(packet.size()).isBetween(1, 3);
            assertThat(packet.records()).allSatisfy(r -> assertThat(r.io()).hasSizeLessThanOrEqualTo(5));
        }
    }
}
