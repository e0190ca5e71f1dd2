package org.fleetpipe.teltonika.codec.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.frame.DataFrame;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.junit.jupiter.api.Test;

/** The cumulation helper is what every framing test trusts: its own checks must bite. */
class TcpStreamTest {

    private final TcpFrameReader reader = new TcpFrameReader(DecodeLimits.DEFAULTS);
    private final byte[] vector = GoldenVectors.ofKind("avl").get(0).bytes();

    @Test
    void close_whenAFrameWasRetainedOnceTooOften_thenFails() {
        TcpStream stream = new TcpStream(reader);
        DataFrame frame = (DataFrame) stream.feed(vector).get(0);
        frame.retain();

        assertThatThrownBy(stream::close).isInstanceOf(AssertionError.class).hasMessageContaining("still");
        frame.release();
    }

    @Test
    void close_whenAFrameStillSharesAnEarlierCumulation_thenFails() {
        TcpStream stream = new TcpStream(reader);
        DataFrame frame = (DataFrame) stream.feed(withHeadOfNext(vector, 10)).get(0);
        frame.retain();
        // Far more than the buffer can take in place while the frame shares it: the stream copies.
        stream.feed(restWithPings(vector, 10, 8192));

        assertThatThrownBy(stream::close).isInstanceOf(AssertionError.class)
                .hasMessageContaining("earlier cumulation");
        frame.release();
    }

    @Test
    void feed_whenCumulationCopiedAfterAFrameWasCut_thenEarlierFrameKeepsItsBytes() {
        try (TcpStream stream = new TcpStream(reader)) {
            List<Frame> first = stream.feed(withHeadOfNext(vector, 10));
            List<Frame> rest = stream.feed(restWithPings(vector, 10, 8192));

            assertThat(rest).hasSize(1 + 8192);
            assertThat(TcpStream.describe(rest.get(0))).isEqualTo(TcpStream.describe(first.get(0)));
            assertThat(Hex.of(((DataFrame) first.get(0)).content())).isEqualTo(Hex.of(vector));
        }
    }

    /** The frame, then the first {@code n} bytes of the same frame again. */
    private static byte[] withHeadOfNext(byte[] frame, int n) {
        byte[] out = Arrays.copyOf(frame, frame.length + n);
        System.arraycopy(frame, 0, out, frame.length, n);
        return out;
    }

    /** The frame from byte {@code from} on, then {@code pings} keep-alive bytes. */
    private static byte[] restWithPings(byte[] frame, int from, int pings) {
        byte[] out = new byte[frame.length - from + pings];
        System.arraycopy(frame, from, out, 0, frame.length - from);
        Arrays.fill(out, frame.length - from, out.length, (byte) 0xFF);
        return out;
    }

    @Test
    void feedSplit_whenCutsUnsortedOrRepeated_thenSameAsWhole() {
        try (TcpStream whole = new TcpStream(reader); TcpStream split = new TcpStream(reader)) {
            assertThat(TcpStream.describe(split.feedSplit(vector, 50, 3, 3, 0, vector.length)))
                    .isEqualTo(TcpStream.describe(whole.feed(vector)));
        }
    }

    @Test
    void feedSplit_whenCutOutsideInput_thenIllegalArgument() {
        try (TcpStream stream = new TcpStream(reader)) {
            assertThatThrownBy(() -> stream.feedSplit(vector, vector.length + 1))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
