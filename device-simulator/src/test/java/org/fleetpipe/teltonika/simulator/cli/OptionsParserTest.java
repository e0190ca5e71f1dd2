package org.fleetpipe.teltonika.simulator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.time.Duration;
import org.fleetpipe.teltonika.simulator.device.ImeiSequence;
import org.junit.jupiter.api.Test;

class OptionsParserTest {

    @Test
    void parse_noArguments_thenTheDocumentedDefaults() throws Exception {
        SimulatorOptions o = OptionsParser.parse();

        assertThat(o.server().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
        assertThat(o.server().getPort()).isEqualTo(5027);
        assertThat(o.devices()).isEqualTo(10);
        assertThat(o.interval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.records()).isEqualTo(5);
        assertThat(o.codec()).isEqualTo(CodecChoice.CODEC_8);
        assertThat(o.transport()).isEqualTo(TransportChoice.TCP);
        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(60));
        assertThat(o.imeiBase()).isEqualTo(ImeiSequence.DEFAULT_BASE);
        assertThat(o.maxPackets()).isEqualTo(Long.MAX_VALUE);
        assertThat(o.load()).isFalse();
        assertThat(o.sourceAddresses()).isEmpty();
        assertThat(o.threads()).isEqualTo(2);
        assertThat(o.startSpread()).isNull();
        assertThat(o.warmup()).isZero();
        assertThat(o.sendFrom()).isZero();
    }

    @Test
    void parse_everyOption_inBothSpellings() throws Exception {
        SimulatorOptions o = OptionsParser.parse("--host", "localhost", "--port=15027", "--devices", "100",
                "--interval", "250ms", "--records=10", "--codec", "8e", "--transport", "UDP", "--duration", "2m",
                "--imei-base", "35000000000000", "--max-packets", "7", "--load", "--source-addresses",
                "127.0.0.2, 127.0.0.3", "--ack-timeout", "3s", "--backoff-min", "100ms", "--backoff-max", "5s",
                "--backlog", "500", "--max-packet-bytes", "4096", "--progress", "0", "--drain", "1s",
                "--threads", "4", "--start-spread", "20s", "--warmup", "30s");

        assertThat(o.server().getAddress().isLoopbackAddress()).isTrue();
        assertThat(o.server().getPort()).isEqualTo(15027);
        assertThat(o.devices()).isEqualTo(100);
        assertThat(o.interval()).isEqualTo(Duration.ofMillis(250));
        assertThat(o.records()).isEqualTo(10);
        assertThat(o.codec()).isEqualTo(CodecChoice.CODEC_8E);
        assertThat(o.transport()).isEqualTo(TransportChoice.UDP);
        assertThat(o.duration()).isEqualTo(Duration.ofMinutes(2));
        assertThat(o.imeiBase()).isEqualTo(35_000_000_000_000L);
        assertThat(o.maxPackets()).isEqualTo(7);
        assertThat(o.load()).isTrue();
        assertThat(o.sourceAddresses()).containsExactly(InetAddress.getByName("127.0.0.2"),
                InetAddress.getByName("127.0.0.3"));
        assertThat(o.ackTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(o.backoffMin()).isEqualTo(Duration.ofMillis(100));
        assertThat(o.backoffMax()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.backlog()).isEqualTo(500);
        assertThat(o.maxPacketBytes()).isEqualTo(4096);
        assertThat(o.progress()).isZero();
        assertThat(o.drain()).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.threads()).isEqualTo(4);
        assertThat(o.startSpread()).isEqualTo(Duration.ofSeconds(20));
        assertThat(o.warmup()).isEqualTo(Duration.ofSeconds(30));
        assertThat(o.deviceSettings().closedLoop()).isTrue();
    }

    @Test
    void parse_sendFrom_thenEachDeviceKeepsItsPhaseAndNoneGeneratesBeforeIt() throws Exception {
        SimulatorOptions o = OptionsParser.parse("--devices", "5000", "--interval", "500ms", "--start-spread", "5s",
                "--send-from", "6s", "--duration", "40s");

        assertThat(o.sendFrom()).isEqualTo(Duration.ofSeconds(6));
        long ms = 1_000_000;
        // Opened 0, 1.2 s and 4.999 s in: records from 6 s, 6.2 s and 6.499 s (the same phase in 500 ms).
        assertThat(o.firstRecordsDelayNanos(0)).isEqualTo(6_000 * ms);
        assertThat(o.firstRecordsDelayNanos(1_200 * ms)).isEqualTo(6_200 * ms);
        assertThat(o.firstRecordsDelayNanos(4_999 * ms)).isEqualTo(6_499 * ms);
        // A device opened after it starts at its opening, as without the option.
        assertThat(o.firstRecordsDelayNanos(7_000 * ms)).isEqualTo(7_000 * ms);
        assertThat(OptionsParser.parse("--devices", "3").firstRecordsDelayNanos(250 * ms)).isEqualTo(250 * ms);
    }

    @Test
    void parse_connections_isTheSameAsDevices() throws Exception {
        assertThat(OptionsParser.parse("--load", "--connections", "200").devices()).isEqualTo(200);
    }

    @Test
    void parse_aHostThatIsNotLoopback_thenRefusedUnlessAllowRemote() throws Exception {
        // Parsing only: nothing is sent anywhere.
        assertThatThrownBy(() -> OptionsParser.parse("--host", "10.20.30.40"))
                .isInstanceOf(UsageException.class)
                .hasMessageContaining("--host").hasMessageContaining("not a loopback address")
                .hasMessageContaining("--allow-remote");
        assertThatThrownBy(() -> OptionsParser.parse("--source-addresses", "127.0.0.2,192.168.1.5"))
                .hasMessageContaining("--source-addresses").hasMessageContaining("192.168.1.5");

        assertThat(OptionsParser.parse("--host", "10.20.30.40", "--allow-remote").server().getHostString())
                .isEqualTo("10.20.30.40");
    }

    @Test
    void parse_badInput_thenOneLineNamingTheOptionAndWhatItExpects() {
        assertMessage("--port 0 is outside 1..65535", "--port", "0");
        assertMessage("--devices: expected a whole number, got 'many'", "--devices", "many");
        assertMessage("--records: 256 is outside 1..255", "--records", "256");
        assertMessage("--codec: expected 8, 8E, 16 or mixed, got '12'", "--codec", "12");
        assertMessage("--transport: expected tcp or udp, got 'sctp'", "--transport", "sctp");
        assertMessage("--interval: expected a duration such as 500ms, 5s, 2m, got '1 sec'", "--interval", "1 sec");
        assertMessage("--duration: must be more than zero", "--duration", "0s");
        assertMessage("--imei-base: expected 14 digits", "--imei-base", "352093081452251");
        assertMessage("unknown option --device", "--device", "3");
        assertMessage("--port needs a value", "--port");
        assertMessage("--load takes no value", "--load=yes");
        assertMessage("unexpected argument 'tcp'", "tcp");
        assertMessage("--backoff-max (1s) is shorter than --backoff-min (2s)", "--backoff-min", "2s",
                "--backoff-max", "1s");
        assertMessage("--warmup (10s) leaves nothing of --duration (10s) to report", "--duration", "10s",
                "--warmup", "10s");
        assertMessage("--send-from applies to interval mode, not --load", "--load", "--send-from", "5s");
        assertMessage("--send-from (10s) leaves nothing of --duration (10s) to send in", "--duration", "10s",
                "--send-from", "10s");
        assertMessage("leaves no room for 3 devices", "--imei-base", "99999999999998", "--devices", "3");
    }

    @Test
    void parse_help_thenAHelpRequest() {
        assertThatThrownBy(() -> OptionsParser.parse("--help"))
                .isInstanceOfSatisfying(UsageException.class, e -> assertThat(e.helpRequested()).isTrue());
    }

    @Test
    void parse_aRepeatedOption_thenTheLastWins() throws Exception {
        assertThat(OptionsParser.parse("--port", "5", "--port", "6").server().getPort()).isEqualTo(6);
        assertThat(OptionsParser.parse("--devices", "5", "--connections", "7").devices()).isEqualTo(7);
    }

    @Test
    void parse_twoMistakes_thenTheFirstIsReported() {
        assertMessage("unknown option --bogus", "--bogus", "--port", "0");
        assertMessage("--port: 0 is outside 1..65535", "--port", "0", "--bogus");
        assertMessage("--connections: 0 is outside 1..1000000", "--connections", "0");
        assertThatThrownBy(() -> OptionsParser.parse("--help", "--port", "0"))
                .isInstanceOfSatisfying(UsageException.class, e -> assertThat(e.helpRequested()).isTrue());
    }

    @Test
    void usage_listsEveryOptionFromTheCommand() {
        assertThat(Usage.text()).startsWith("usage: java -jar device-simulator.jar [options]")
                .contains("--source-addresses", "--warmup", "--connections", "Durations: 500ms")
                .doesNotContain("Usage:");
    }

    private static void assertMessage(String expected, String... args) {
        assertThatThrownBy(() -> OptionsParser.parse(args)).isInstanceOf(UsageException.class)
                .hasMessageContaining(expected.replace("--port 0", "--port: 0"));
    }
}
