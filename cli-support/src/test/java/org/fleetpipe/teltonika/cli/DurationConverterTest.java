package org.fleetpipe.teltonika.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

class DurationConverterTest {

    @Command(name = "tool")
    static final class Tool {
        @Option(names = "--wait", defaultValue = "${env:DURATION_CONVERTER_TEST_UNSET:-1h30m}",
                converter = DurationConverter.class)
        Duration wait;
    }

    private static Tool parse(String... args) {
        Tool tool = new Tool();
        new CommandLine(tool).parseArgs(args);
        return tool;
    }

    @Test
    void anOptionAndItsDefault_readTheOneGrammar_notPicocliIsoOnly() {
        assertThat(parse().wait).isEqualTo(Duration.ofMinutes(90));
        assertThat(parse("--wait", "500ms").wait).isEqualTo(Duration.ofMillis(500));
        assertThat(parse("--wait=PT2S").wait).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aBadValue_isPicoclisRefusal_namingTheOptionAndWhy() {
        assertThatThrownBy(() -> parse("--wait", "soon")).isInstanceOf(ParameterException.class)
                .hasMessageContaining("--wait").hasMessageContaining("'soon' is not a duration");
    }
}
