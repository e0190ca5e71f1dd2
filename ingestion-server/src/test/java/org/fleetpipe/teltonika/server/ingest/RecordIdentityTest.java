package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlPacket;
import org.fleetpipe.teltonika.codec.avl.AvlPacketView;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.AvlRecordCursor;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.IoElement;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.junit.jupiter.api.Test;

/** Same record, same identity; any difference in time or content, another one. */
class RecordIdentityTest {

    private static final GpsElement GPS = new GpsElement(252796514, 546871555, (short) 112, 245, 14, 47);

    private static AvlRecord record(long ts, List<IoElement> io) {
        return new AvlRecord(ts, 0, GPS, 0, AvlRecord.NO_GENERATION, io);
    }

    @Test
    void of_whenTheSameRecordAgain_thenTheSameIdentity() {
        AvlRecord a = record(1_763_800_000_000L, List.of(new IoElement.Fixed(239, 1, 1)));
        AvlRecord b = record(1_763_800_000_000L, List.of(new IoElement.Fixed(239, 1, 1)));

        assertThat(identity(CodecId.CODEC_8, a)).isEqualTo(identity(CodecId.CODEC_8, b));
    }

    @Test
    void of_whenOneFieldDiffers_thenAnotherIdentity() {
        AvlRecord base = record(1_763_800_000_000L, List.of(new IoElement.Fixed(239, 1, 1)));
        List<AvlRecord> variants = List.of(
                base,
                record(1_763_800_000_001L, base.io()),
                new AvlRecord(base.timestamp(), 1, GPS, 0, AvlRecord.NO_GENERATION, base.io()),
                new AvlRecord(base.timestamp(), 0, new GpsElement(252796515, 546871555, (short) 112, 245, 14, 47), 0,
                        AvlRecord.NO_GENERATION, base.io()),
                new AvlRecord(base.timestamp(), 0, GPS, 239, AvlRecord.NO_GENERATION, base.io()),
                record(base.timestamp(), List.of(new IoElement.Fixed(239, 1, 0))),
                record(base.timestamp(), List.of(new IoElement.Fixed(239, 2, 1))),
                record(base.timestamp(), List.of()));
        Set<Long> ids = new HashSet<>();
        for (AvlRecord v : variants) {
            ids.add(identity(CodecId.CODEC_8E, v));
        }
        ids.add(identity(CodecId.CODEC_8, base));

        assertThat(ids).hasSize(variants.size() + 1);
        assertThat(identity(CodecId.CODEC_16, new AvlRecord(base.timestamp(), 0, GPS, 0, 2, base.io())))
                .isNotEqualTo(identity(CodecId.CODEC_16, new AvlRecord(base.timestamp(), 0, GPS, 0, 1, base.io())));
    }

    /** The identity the server computes: from the record's bytes, read with a cursor. */
    private static long identity(CodecId codec, AvlRecord r) {
        AvlRecordCursor cursor = new AvlRecordCursor().reset(AvlPacketView.of(new AvlPacket(codec, List.of(r))));
        assertThat(cursor.next()).isTrue();
        return RecordIdentity.of(codec, cursor);
    }

    @Test
    void of_whenAFixedAndAVariableElementHoldTheSameBytes_thenTheyDiffer() {
        AvlRecord fixed = record(1L, List.of(new IoElement.Fixed(5, 2, 0x1234)));
        AvlRecord variable = record(1L, List.of(new IoElement.Variable(5, new byte[] {0x12, 0x34})));
        AvlRecord longer = record(1L, List.of(new IoElement.Variable(5, new byte[] {0x00, 0x12, 0x34})));

        assertThat(Set.of(identity(CodecId.CODEC_8E, fixed), identity(CodecId.CODEC_8E, variable),
                identity(CodecId.CODEC_8E, longer))).hasSize(3);
    }

    @Test
    void of_whenManyRandomRecords_thenNoCollision() {
        Set<Long> ids = new HashSet<>();
        int records = 0;
        for (int seed = 0; seed < 2_000; seed++) {
            AvlPacket packet = new RandomAvl(seed).packet(CodecId.CODEC_8E, 50);
            for (AvlRecord r : packet.records()) {
                ids.add(identity(CodecId.CODEC_8E, r));
                records++;
            }
        }
        Set<AvlRecord> distinct = new HashSet<>();
        for (int seed = 0; seed < 2_000; seed++) {
            distinct.addAll(new RandomAvl(seed).packet(CodecId.CODEC_8E, 50).records());
        }
        assertThat(records).isEqualTo(100_000);
        assertThat(ids).hasSize(distinct.size());
    }

    /**
     * The identities stored in Redis outlive a server version: a device that resends across a
     * rolling upgrade must get the same identity from the new one. Pinned against the element-by-
     * element definition the identities were first computed with.
     */
    @Test
    void of_isTheSameAsTheFirstDefinitionOverTheElements() {
        for (int seed = 0; seed < 300; seed++) {
            for (CodecId codec : List.of(CodecId.CODEC_8, CodecId.CODEC_8E, CodecId.CODEC_16)) {
                for (AvlRecord r : new RandomAvl(seed).packet(codec, 5).records()) {
                    assertThat(identity(codec, r)).isEqualTo(firstDefinition(codec, r));
                }
            }
        }
        assertThat(identity(CodecId.CODEC_8, record(1_763_800_000_000L, List.of(new IoElement.Fixed(239, 1, 1)))))
                .isEqualTo(firstDefinition(CodecId.CODEC_8, record(1_763_800_000_000L,
                        List.of(new IoElement.Fixed(239, 1, 1)))));
    }

    private static long firstDefinition(CodecId codec, AvlRecord r) {
        GpsElement g = r.gps();
        long h = 0x9E3779B97F4A7C15L;
        for (long field : new long[] {r.timestamp(), codec.wire(), r.priority(), g.longitude(), g.latitude(),
                g.altitude(), g.angle(), g.satellites(), g.speed(), r.eventIoId(), r.generationType()}) {
            h = step(h, field);
        }
        for (IoElement e : r.io()) {
            h = step(h, e.id());
            if (e instanceof IoElement.Fixed f) {
                h = step(h, f.width());
                h = step(h, f.value());
            } else if (e instanceof IoElement.Variable v) {
                int length = v.length();
                h = step(h, (1L << 32) | length);
                for (int at = 0; at < length; at += 8) {
                    long word = 0;
                    for (int i = at; i < Math.min(at + 8, length); i++) {
                        word = (word << 8) | (v.byteAt(i) & 0xFF);
                    }
                    h = step(h, word);
                }
            }
        }
        h = step(h, r.io().size());
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    private static long step(long h, long value) {
        long k = Long.rotateLeft(value * 0x87c37b91114253d5L, 31) * 0x4cf5ad432745937fL;
        return Long.rotateLeft(h ^ k, 27) * 5 + 0x52dce729;
    }
}
