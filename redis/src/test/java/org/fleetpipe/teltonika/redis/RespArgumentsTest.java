package org.fleetpipe.teltonika.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** RESP bulk strings written by hand must be exactly what Redis parses. */
class RespArgumentsTest {

    @Test
    void text_whenAscii_thenOneBulkStringWithItsLength() {
        assertThat(encodedText(new RespArguments(8).text("imei").text(""))).isEqualTo("$4\r\nimei\r\n$0\r\n\r\n");
    }

    @Test
    void text_whenNotAscii_thenUtf8WithTheByteLength() {
        RespArguments args = new RespArguments(8).text("zoë→");

        assertThat(encodedText(args)).isEqualTo("$7\r\nzoë→\r\n");
        assertThat(args.strings()).containsExactly("zoë→");
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 7, -7, 9, 10, 99, 100, 101, 12345, -12345, 1_763_800_000_000L, 999_999_999_999_999_999L,
            1_000_000_000_000_000_000L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1})
    void number_whenAnyLong_thenLongToString(long value) {
        String text = Long.toString(value);

        assertThat(encodedText(new RespArguments(4).number(value))).isEqualTo("$" + text.length() + "\r\n" + text + "\r\n");
    }

    @Test
    void number_whenRandomLongs_thenLongToString() {
        Random random = new Random(7);
        RespArguments args = new RespArguments(4);
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            long value = random.nextLong() >> random.nextInt(64);
            args.number(value);
            expected.append(Long.toString(value)).append(' ');
        }
        assertThat(String.join(" ", args.strings()) + " ").isEqualTo(expected.toString());
        assertThat(args.count()).isEqualTo(10_000);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, Long.MAX_VALUE, -1, Long.MIN_VALUE, -10, 0x8000_0000_0000_0009L})
    void putUnsigned_whenAnyBits_thenUnsignedDecimal(long bits) {
        RespArguments args = new RespArguments(4).open().putUnsigned(bits).close();

        assertThat(args.strings()).containsExactly(Long.toUnsignedString(bits));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 9, 10, 99, 100, 999, 1000, 99_999, 100_000, 1_000_000})
    void open_whenContentOfAnyLength_thenHeaderFitsItAndFollowingArgumentsStayIntact(int size) {
        RespArguments args = new RespArguments(4).text("before").open();
        for (int i = 0; i < size; i++) {
            args.put((char) ('a' + i % 26));
        }
        args.close().number(-5);

        assertThat(args.count()).isEqualTo(3);
        assertThat(args.strings()).hasSize(3).startsWith("before").endsWith("-5");
        assertThat(args.strings().get(1)).hasSize(size);
        assertThat(args.byteLength()).isEqualTo(encodedText(args).length());
    }

    @Test
    void open_whenAlreadyOpenOrNothingOpen_thenRefused() {
        assertThatThrownBy(() -> new RespArguments(4).open().open()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new RespArguments(4).close()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void putPaddedAndPutHex_whenWritten_thenLeadingZerosKept() {
        RespArguments args = new RespArguments(4).open().putPadded(42, 7).put('/').putHex((byte) 0x0A)
                .putHex((byte) 0xFF).close();

        assertThat(args.strings()).containsExactly("0000042/0aff");
    }

    @Test
    void after_whenEncodedByLettuce_thenFirstArgumentThenTheRestAndTheCountOfAll() {
        byte[] sha = RespArguments.preEncoded("abc");
        RespArguments rest = new RespArguments(4).number(1).text("key");
        ByteBuf buf = Unpooled.buffer();

        var args = rest.after(sha);
        args.encode(buf);

        assertThat(args.count()).isEqualTo(3);
        assertThat(buf.toString(StandardCharsets.UTF_8)).isEqualTo("$3\r\nabc\r\n$1\r\n1\r\n$3\r\nkey\r\n");
        buf.release();
    }

    @Test
    void after_whenHandedOver_thenEncodesTheSameBytesEachTimeAndRefusesMoreWrites() {
        RespArguments rest = new RespArguments(4).number(1).text("key");
        var args = rest.after(RespArguments.preEncoded("sha"));
        ByteBuf first = Unpooled.buffer();
        ByteBuf again = Unpooled.buffer();

        args.encode(first);
        args.encode(again);

        assertThat(again).isEqualTo(first);
        assertThatThrownBy(() -> rest.text("more")).isInstanceOf(IllegalStateException.class);
        first.release();
        again.release();
    }

    private static String encodedText(RespArguments args) {
        ByteBuf buf = Unpooled.buffer();
        try {
            args.after(new byte[0]).encode(buf);
            return buf.toString(StandardCharsets.UTF_8);
        } finally {
            buf.release();
        }
    }

    @Test
    void decimal_whenAnyIntAndScale_thenBigDecimalsPlainTextWithoutTrailingZeros() {
        Random random = new Random(11);
        RespArguments args = new RespArguments(8);
        java.util.List<String> expected = new java.util.ArrayList<>();
        int[] edges = {0, 1, -1, 10, -10, 10_000_000, -10_000_000, 5_000_000, -5_000_000, 1_800_000_000,
            -1_800_000_000, 123_456_789, Integer.MAX_VALUE, Integer.MIN_VALUE};
        for (int scale = 0; scale <= 9; scale++) {
            for (int i = 0; i < edges.length + 500; i++) {
                int value = i < edges.length ? edges[i] : random.nextInt() >> random.nextInt(32);
                args.decimal(value, scale);
                expected.add(java.math.BigDecimal.valueOf(value, scale).stripTrailingZeros().toPlainString());
            }
        }

        assertThat(args.strings()).isEqualTo(expected);
        assertThatThrownBy(() -> args.decimal(1, 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void number_whenEveryPowerOfTenAndItsNeighbours_thenTheDecimalText() {
        RespArguments args = new RespArguments(16);
        java.util.List<String> expected = new java.util.ArrayList<>();
        long power = 1;
        for (int i = 0; i < 19; i++) {
            for (long v : new long[] {power - 1, power, power + 1, -power, -(power - 1)}) {
                args.number(v);
                expected.add(Long.toString(v));
                assertThat(RespArguments.digits(v)).as("digits(%d)", v).isEqualTo(Long.toString(v).length());
            }
            power *= 10;
        }
        for (long v : new long[] {Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1}) {
            args.number(v);
            expected.add(Long.toString(v));
        }
        Random random = new Random(7);
        for (int i = 0; i < 1_000; i++) {
            long v = random.nextLong() >> random.nextInt(64);
            args.number(v);
            expected.add(Long.toString(v));
        }

        assertThat(args.strings()).isEqualTo(expected);
    }
}
