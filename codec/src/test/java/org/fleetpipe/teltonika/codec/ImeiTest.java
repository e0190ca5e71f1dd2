package org.fleetpipe.teltonika.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Random;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.fleetpipe.teltonika.codec.CodecException.Reason;
import org.fleetpipe.teltonika.codec.frame.Frame;
import org.fleetpipe.teltonika.codec.frame.LoginFrame;
import org.fleetpipe.teltonika.codec.frame.TcpFrameReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ImeiTest {

    private static final long SEED = 0x1AE1L;

    /** The IMEI of the Teltonika wiki's Codec 14 example; its last digit is a correct Luhn check digit. */
    private static final String WIKI_IMEI = "352093081452251";
    /** Simulators' favourite; its check digit would have to be 7. */
    private static final String SIMULATOR_IMEI = "123456789012345";

    @ParameterizedTest
    @ValueSource(strings = {WIKI_IMEI, "490154203237518", "356938035643809", "000000000000000"})
    void parse_whenLuhnValidAndVerified_thenAccepted(String text) {
        Imei imei = Imei.parse(text, true);

        assertThat(imei.value()).isEqualTo(text);
        assertThat(imei.toString()).isEqualTo(text);
        assertThat(Imei.luhnValid(text)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {SIMULATOR_IMEI, "352093081452252", "490154203237519", "356938035643800"})
    void parse_whenCheckDigitWrongAndVerified_thenImeiCheckDigit(String text) {
        assertReason(() -> Imei.parse(text, true), Reason.IMEI_CHECK_DIGIT);
        assertThat(Reason.IMEI_CHECK_DIGIT.isImeiProblem()).isTrue();
        assertThat(Imei.luhnValid(text)).isFalse();
    }

    @Test
    void parse_whenCheckDigitWrongButNotVerified_thenAccepted() {
        // Servers may choose to accept simulator IMEIs; only the check digit is optional.
        assertThat(Imei.parse(SIMULATOR_IMEI, false).value()).isEqualTo(SIMULATOR_IMEI);
        assertThat(new Imei(SIMULATOR_IMEI).value()).isEqualTo(SIMULATOR_IMEI);
    }

    @Test
    void luhnValid_whenSimulatorImei_thenFalse() {
        assertThat(Imei.luhnValid(SIMULATOR_IMEI)).isFalse();
        assertThat(Imei.luhnValid("123456789012347")).as("same body with its correct check digit").isTrue();
    }

    @Test
    void luhnValid_whenAnyFourteenDigitBody_thenExactlyOneCheckDigitPasses() {
        // A property of Luhn: the check digit is a function of the body. Catches a doubled-from-the-left bug.
        Random random = new Random(SEED);
        for (int i = 0; i < 300; i++) {
            StringBuilder body = new StringBuilder();
            for (int d = 0; d < 14; d++) {
                body.append((char) ('0' + random.nextInt(10)));
            }
            int passing = 0;
            for (char check = '0'; check <= '9'; check++) {
                if (Imei.luhnValid(body.toString() + check)) {
                    passing++;
                    assertThat(check - '0').as("seed %d body %s", SEED, body).isEqualTo(referenceCheckDigit(body));
                }
            }
            assertThat(passing).as("seed %d body %s", SEED, body).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "35209308145225", "3520930814522510", "3520930814522511234"})
    void parse_whenNotFifteenCharacters_thenImeiLength(String text) {
        assertReason(() -> Imei.parse(text, false), Reason.IMEI_LENGTH);
        assertReason(() -> Imei.parse(text, true), Reason.IMEI_LENGTH);
    }

    @Test
    void constructor_whenNull_thenImeiLength() {
        assertReason(() -> new Imei(null), Reason.IMEI_LENGTH);
    }

    @ParameterizedTest
    @ValueSource(strings = {"35209308145225A", "35209308145225 ", " 35209308145225", "352093-81452251", "+35209308145225",
            // Arabic-Indic and full-width digits pass Character.isDigit but are not ASCII digits.
            "35209308145225\u0661", "\uFF13\uFF15\uFF12093081452251"})
    void parse_whenNonDigit_thenImeiNotDigits(String text) {
        assertThat(text).hasSize(15);
        assertReason(() -> Imei.parse(text, false), Reason.IMEI_NOT_DIGITS);
        assertReason(() -> Imei.parse(text, true), Reason.IMEI_NOT_DIGITS);
    }

    @Test
    void reasons_whenImeiProblems_thenFlaggedAsImeiProblems() {
        assertThat(List.of(Reason.values()))
                .filteredOn(Reason::isImeiProblem)
                .containsExactlyInAnyOrder(Reason.IMEI_LENGTH, Reason.IMEI_NOT_DIGITS, Reason.IMEI_CHECK_DIGIT);
    }

    @Test
    void asLong_whenLeadingZeros_thenNumericValue() {
        assertThat(new Imei(WIKI_IMEI).asLong()).isEqualTo(352_093_081_452_251L);
        assertThat(new Imei("000000000000042").asLong()).isEqualTo(42L);
    }

    @Test
    void loginFrame_whenWikiImei_thenTextParsesWithCheckDigit() {
        Frame frame = readLogin(WIKI_IMEI);

        assertThat(frame).isEqualTo(new LoginFrame(WIKI_IMEI));
        assertThat(Imei.parse(((LoginFrame) frame).text(), true).value()).isEqualTo(WIKI_IMEI);
    }

    @Test
    void loginFrame_whenMalformedText_thenFramedAsIsAndRejectedByParse() {
        // The reader frames the login without judging it; Imei.parse is where policy applies.
        assertReason(() -> Imei.parse(((LoginFrame) readLogin("35209308145225X")).text(), false),
                Reason.IMEI_NOT_DIGITS);
        assertReason(() -> Imei.parse(((LoginFrame) readLogin("3520930814522")).text(), false),
                Reason.IMEI_LENGTH);
        assertReason(() -> Imei.parse(((LoginFrame) readLogin(SIMULATOR_IMEI)).text(), true),
                Reason.IMEI_CHECK_DIGIT);
    }

    private static Frame readLogin(String text) {
        ByteBuf in = Acks.writeLoginRequest(Unpooled.buffer(), text);
        try {
            Frame frame = new TcpFrameReader(DecodeLimits.DEFAULTS).tryRead(in);
            assertThat(in.isReadable()).isFalse();
            return frame;
        } finally {
            in.release();
        }
    }

    private static void assertReason(ThrowingCallable call, Reason reason) {
        CodecException e = catchThrowableOfType(CodecException.class, call);
        assertThat(e).as("expected a CodecException").isNotNull();
        assertThat(e.reason()).isEqualTo(reason);
    }

    /** Textbook Luhn: double every second digit from the right of the full number, check digit included. */
    private static int referenceCheckDigit(CharSequence body) {
        int sum = 0;
        for (int i = 0; i < body.length(); i++) {
            int d = body.charAt(body.length() - 1 - i) - '0';
            // With the check digit appended, the body's rightmost digit sits at an odd position: doubled.
            sum += i % 2 == 0 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d;
        }
        return (10 - sum % 10) % 10;
    }
}
