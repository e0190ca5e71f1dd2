package org.fleetpipe.teltonika.codec.avl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import java.util.List;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.testing.RandomAvl;
import org.junit.jupiter.api.Test;

/** IO elements kept as arrays read back as the elements they were made from. */
class IoElementsTest {

    @Test
    void of_whenElementsGiven_thenTheSameElementsReadBackByObjectAndByIndex() {
        List<IoElement> given = List.of(new IoElement.Fixed(239, 1, 1), new IoElement.Fixed(66, 2, 12_345),
                new IoElement.Fixed(16, 4, 0xFFFF_FFFFL), new IoElement.Fixed(11, 8, -1L),
                new IoElement.Variable(385, new byte[] {1, 2, 3}));

        IoElements io = IoElements.of(given);

        assertThat(io).containsExactlyElementsOf(given);
        assertThat(io).isEqualTo(given);
        assertThat(io.hashCode()).isEqualTo(given.hashCode());
        assertThat(io.id(3)).isEqualTo(11);
        assertThat(io.width(3)).isEqualTo(8);
        assertThat(io.value(3)).isEqualTo(-1L);
        assertThat(io.isVariable(4)).isTrue();
        assertThat(io.variableLength(4)).isEqualTo(3);
        assertThat(io.variableByte(4, 2)).isEqualTo((byte) 3);
        assertThat(IoElements.of(io)).isSameAs(io);
    }

    @Test
    void of_whenAVariableValueChangesAfterwards_thenTheRecordDoesNot() {
        byte[] value = {7, 7};
        IoElement.Variable element = new IoElement.Variable(1, value);
        IoElements io = IoElements.of(List.of(element));
        value[0] = 9;

        assertThat(io.variableByte(0, 0)).isEqualTo((byte) 7);
        assertThatThrownBy(() -> io.add(element)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void builder_whenAValueDoesNotFitItsWidth_thenRefusedAsTheElementWouldBe() {
        assertThatThrownBy(() -> new IoElements.Builder(1).fixed(1, 1, 256)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IoElements.Builder(1).fixed(1, 3, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IoElements.Builder(2).fixed(1, 1, 1).build()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void decodedRecords_equalTheRecordsTheyWereEncodedFrom() {
        AvlPacketDecoder decoder = new AvlPacketDecoder(DecodeLimits.DEFAULTS.withMaxFrameBytes(1024 * 1024));
        for (int seed = 0; seed < 200; seed++) {
            for (CodecId codec : List.of(CodecId.CODEC_8, CodecId.CODEC_8E, CodecId.CODEC_16)) {
                AvlPacket packet = new RandomAvl(seed).packet(codec, 5);
                AvlPacket decoded = decoder.decode(Unpooled.wrappedBuffer(RandomAvl.body(packet)));
                assertThat(decoded).isEqualTo(packet);
                assertThat(decoded.records().get(0).io()).isInstanceOf(IoElements.class);
            }
        }
    }
}
