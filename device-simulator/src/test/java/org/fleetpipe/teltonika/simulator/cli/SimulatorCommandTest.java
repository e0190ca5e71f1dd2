package org.fleetpipe.teltonika.simulator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import org.fleetpipe.teltonika.cli.DurationText;
import org.fleetpipe.teltonika.simulator.device.ImeiSequence;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

class SimulatorCommandTest {

    @Test
    void parse_noArguments_thenTheDocumentedDefaults() {
        SimulatorOptions o = SimulatorCommand.parse();

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
        assertThat(o.ackTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(o.backoffMin()).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.backoffMax()).isEqualTo(Duration.ofSeconds(30));
        assertThat(o.backlog()).isEqualTo(10_000);
        assertThat(o.maxPacketBytes()).isEqualTo(1280);
        assertThat(o.progress()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.drain()).isEqualTo(Duration.ofSeconds(10));
        assertThat(o.threads()).isEqualTo(2);
        assertThat(o.startSpread()).isNull();
        assertThat(o.warmup()).isZero();
        assertThat(o.sendFrom()).isZero();
    }

    @Test
    void parse_everyOption_inBothSpellings() throws Exception {
        SimulatorOptions o = SimulatorCommand.parse("--host", "localhost", "--port=15027", "--devices", "100",
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
    void durations_readTheToolsOneGrammar() {
        SimulatorOptions o = SimulatorCommand.parse("--duration", "1m30s", "--interval", "PT0.5S", "--drain", "1.5s",
                "--warmup", "10 seconds");

        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(90));
        assertThat(o.interval()).isEqualTo(Duration.ofMillis(500));
        assertThat(o.drain()).isEqualTo(Duration.ofMillis(1500));
        assertThat(o.warmup()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void parse_sendFrom_thenEachDeviceKeepsItsPhaseAndNoneGeneratesBeforeIt() {
        SimulatorOptions o = SimulatorCommand.parse("--devices", "5000", "--interval", "500ms", "--start-spread", "5s",
                "--send-from", "6s", "--duration", "40s");

        assertThat(o.sendFrom()).isEqualTo(Duration.ofSeconds(6));
        long ms = 1_000_000;
        // Opened 0, 1.2 s and 4.999 s in: records from 6 s, 6.2 s and 6.499 s (the same phase in 500 ms).
        assertThat(o.firstRecordsDelayNanos(0)).isEqualTo(6_000 * ms);
        assertThat(o.firstRecordsDelayNanos(1_200 * ms)).isEqualTo(6_200 * ms);
        assertThat(o.firstRecordsDelayNanos(4_999 * ms)).isEqualTo(6_499 * ms);
        // A device opened after it starts at its opening, as without the option.
        assertThat(o.firstRecordsDelayNanos(7_000 * ms)).isEqualTo(7_000 * ms);
        assertThat(SimulatorCommand.parse("--devices", "3").firstRecordsDelayNanos(250 * ms)).isEqualTo(250 * ms);
    }

    @Test
    void parse_connections_isTheSameAsDevices() {
        assertThat(SimulatorCommand.parse("--load", "--connections", "200").devices()).isEqualTo(200);
    }

    @Test
    void parse_aHostThatIsNotLoopback_thenRefusedUnlessAllowRemote() {
        // Parsing only: nothing is sent anywhere.
        assertThatThrownBy(() -> SimulatorCommand.parse("--host", "10.20.30.40"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("--host").hasMessageContaining("not a loopback address")
                .hasMessageContaining("--allow-remote");
        assertThatThrownBy(() -> SimulatorCommand.parse("--source-addresses", "127.0.0.2,192.168.1.5"))
                .hasMessageContaining("--source-addresses").hasMessageContaining("192.168.1.5");

        assertThat(SimulatorCommand.parse("--host", "10.20.30.40", "--allow-remote").server().getHostString())
                .isEqualTo("10.20.30.40");
    }

    @Test
    void parse_badInput_thenOneLineNamingTheOptionAndWhatItExpects() {
        assertMessage("--port must be 1..65535, got 0", "--port", "0");
        assertMessage("'many' is not an int", "--devices", "many");
        assertMessage("--records must be 1..255, got 256", "--records", "256");
        assertMessage("--codec': expected 8, 8E, 16 or mixed, got '12'", "--codec", "12");
        assertMessage("--transport", "--transport", "sctp");
        assertMessage("--interval': '1 sec' is not a duration: unknown unit 'sec'", "--interval", "1 sec");
        assertMessage("--interval': '5' is not a duration", "--interval", "5");
        assertMessage("--duration must be more than zero", "--duration", "0s");
        assertMessage("--imei-base must be 0..99999999999999, got 352093081452251", "--imei-base", "352093081452251");
        assertMessage("--device", "--device", "3");
        assertMessage("--port", "--port");
        assertMessage("--load", "--load=yes");
        assertMessage("tcp", "tcp");
        assertMessage("--backoff-max (1s) is shorter than --backoff-min (2s)", "--backoff-min", "2s",
                "--backoff-max", "1s");
        assertMessage("--warmup (10s) leaves nothing of --duration (10s) to report", "--duration", "10s",
                "--warmup", "10s");
        assertMessage("--send-from applies to interval mode, not --load", "--load", "--send-from", "5s");
        assertMessage("--send-from (10s) leaves nothing of --duration (10s) to send in", "--duration", "10s",
                "--send-from", "10s");
        assertMessage("leaves no room for 3 devices", "--imei-base", "99999999999998", "--devices", "3");
        assertMessage("--devices (--connections) must be 1..1000000, got 0", "--connections", "0");
    }

    @Test
    void parse_aRepeatedOption_thenTheLastWins() {
        assertThat(SimulatorCommand.parse("--port", "5", "--port", "6").server().getPort()).isEqualTo(6);
        assertThat(SimulatorCommand.parse("--devices", "5", "--connections", "7").devices()).isEqualTo(7);
        assertThat(SimulatorCommand.parse("--progress", "0", "--progress", "5s").progress())
                .isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void sourceAddresses_givenTwice_thenBothLists() throws Exception {
        assertThat(SimulatorCommand.parse("--source-addresses", "127.0.0.2", "--source-addresses", "127.0.0.3,127.0.0.4")
                .sourceAddresses()).containsExactly(InetAddress.getByName("127.0.0.2"),
                InetAddress.getByName("127.0.0.3"), InetAddress.getByName("127.0.0.4"));
    }

    @Test
    void everyOption_isATypedField_notASetter() {
        CommandLine line = new SimulatorCommand().commandLine();
        assertThat(line.getCommandSpec().options()).allSatisfy(option -> assertThat(option.setter().toString())
                .as(option.longestName()).contains("FieldBinding"));
        assertThat(Arrays.stream(SimulatorCommand.class.getDeclaredMethods())
                .map(m -> m.getAnnotation(CommandLine.Option.class)).filter(Objects::nonNull)).isEmpty();
    }

    @Test
    void usage_listsEveryOptionWithItsDefault() {
        String usage = new SimulatorCommand().commandLine().getUsageMessage(Ansi.OFF);
        assertThat(usage).startsWith("usage: java -jar device-simulator.jar [options]")
                .contains("--source-addresses", "--warmup", "--connections", DurationText.HELP,
                        "(default 5027)", "(default 1s)", "35209308000000", "--source-addresses=A,B ")
                .doesNotContain("Usage:", "${DEFAULT-VALUE}");
        for (OptionSpec option : new SimulatorCommand().commandLine().getCommandSpec().options()) {
            assertThat(usage).contains(option.longestName());
        }
    }

    private static void assertMessage(String expected, String... args) {
        assertThatThrownBy(() -> SimulatorCommand.parse(args)).isInstanceOf(ParameterException.class)
                .hasMessageContaining(expected);
    }
}
