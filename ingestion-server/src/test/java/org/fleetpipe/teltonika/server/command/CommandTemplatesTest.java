package org.fleetpipe.teltonika.server.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.fleetpipe.teltonika.server.command.CommandTemplates.BadArgument;
import org.fleetpipe.teltonika.server.command.CommandTemplates.Built;
import org.fleetpipe.teltonika.server.command.CommandTemplates.Text;
import org.fleetpipe.teltonika.server.command.CommandTemplates.UnknownTemplate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each template builds the text Teltonika documents (their examples), and refuses what it cannot send. */
class CommandTemplatesTest {

    /** Keys and values in pairs, in order (Map.of has none). */
    private static Map<String, Object> args(Object... pairs) {
        Map<String, Object> args = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            args.put((String) pairs[i], pairs[i + 1]);
        }
        return args;
    }

    private static String text(String template, Map<String, ?> args) {
        Built built = CommandTemplates.build(template, args);
        assertThat(built).as("%s %s", template, args).isInstanceOf(Text.class);
        return ((Text) built).text();
    }

    static Stream<Arguments> documentedTexts() {
        return Stream.of(
                Arguments.of("getinfo", args(), "getinfo"),
                Arguments.of("getver", args(), "getver"),
                Arguments.of("getstatus", args(), "getstatus"),
                Arguments.of("getgps", args(), "getgps"),
                Arguments.of("cpureset", args(), "cpureset"),
                Arguments.of("web_connect", args(), "web_connect"),
                Arguments.of("readio", args("id", 3L), "readio 3"),
                Arguments.of("readio", args("id", 65535L), "readio 65535"),
                // setdigout: one character per output up to the last one given, '?' leaves one as it is.
                Arguments.of("setdigout", args("out1", 1L), "setdigout 1"),
                Arguments.of("setdigout", args("out2", 1L), "setdigout ?1"),
                Arguments.of("setdigout", args("out1", 0L, "out2", 1L), "setdigout 01"),
                Arguments.of("setdigout", args("out2", 0L, "out1", 1L), "setdigout 10"),
                Arguments.of("setdigout", args("out1", 1L, "out3", 0L), "setdigout 1?0"),
                Arguments.of("setdigout", args("out4", 1L), "setdigout ???1"),
                Arguments.of("setdigout", args("out1", 1L, "out2", 1L, "out3", 1L, "out4", 0L), "setdigout 1110"),
                Arguments.of("getparam", args("ids", List.of(2001L)), "getparam 2001"),
                Arguments.of("getparam", args("ids", List.of(2001L, 1000L)), "getparam 2001;1000"),
                Arguments.of("getparam", args("ids", List.of(13000L, 1000L)), "getparam 13000;1000"),
                Arguments.of("setparam", args("values", args("2001", "wap", "2002", "user", "2003", "pass")),
                        "setparam 2001:wap;2002:user;2003:pass"),
                Arguments.of("setparam", args("values", args("1000", 300L, "13000", "fm.teltonika.lt")),
                        "setparam 1000:300;13000:fm.teltonika.lt"),
                Arguments.of("setparam", args("values", args("2003", "")), "setparam 2003:"));
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("documentedTexts")
    void everyTemplate_buildsTheDocumentedText(String template, Map<String, Object> args, String expected) {
        assertThat(text(template, args)).isEqualTo(expected);
    }

    @Test
    void integersMayComeAsAnyIntegralType() {
        assertThat(text("readio", args("id", 21))).isEqualTo("readio 21");
        assertThat(text("readio", args("id", BigInteger.valueOf(21)))).isEqualTo("readio 21");
        assertThat(text("getparam", args("ids", List.of(2001, 2002L)))).isEqualTo("getparam 2001;2002");
    }

    @Test
    void anUnknownTemplate_isNamed() {
        assertThat(CommandTemplates.build("reboot", Map.of())).isEqualTo(new UnknownTemplate("reboot"));
        assertThat(CommandTemplates.build("GETINFO", Map.of())).isEqualTo(new UnknownTemplate("GETINFO"));
    }

    static Stream<Arguments> badArguments() {
        List<Long> tooMany = new ArrayList<>();
        Map<String, Object> tooManyValues = new LinkedHashMap<>();
        for (long id = 1; id <= CommandTemplates.MAX_PARAMETERS + 1; id++) {
            tooMany.add(id);
            tooManyValues.put(Long.toString(id), "x");
        }
        Map<String, Object> withNull = new LinkedHashMap<>();
        withNull.put("2001", null);
        Map<String, Object> nullOutput = new LinkedHashMap<>();
        nullOutput.put("out1", null);
        return Stream.of(
                Arguments.of("getinfo", args("id", 1L), "id"),
                Arguments.of("cpureset", args("now", true), "now"),
                Arguments.of("readio", args(), "id"),
                Arguments.of("readio", args("id", "21"), "id"),
                Arguments.of("readio", args("id", 0L), "id"),
                Arguments.of("readio", args("id", 65536L), "id"),
                Arguments.of("readio", args("id", -1L), "id"),
                Arguments.of("readio", args("id", 2.5), "id"),
                Arguments.of("readio", args("id", true), "id"),
                Arguments.of("readio", args("id", BigInteger.TWO.pow(70)), "id"),
                Arguments.of("readio", args("id", 21L, "ids", List.of(1L)), "ids"),
                Arguments.of("setdigout", args(), "out1, out2, out3, out4"),
                Arguments.of("setdigout", args("out1", 2L), "out1"),
                Arguments.of("setdigout", nullOutput, "out1"),
                Arguments.of("setdigout", args("out3", "1"), "out3"),
                Arguments.of("setdigout", args("out1", 1L, "out5", 1L), "out5"),
                Arguments.of("getparam", args(), "ids"),
                Arguments.of("getparam", args("ids", List.of()), "ids"),
                Arguments.of("getparam", args("ids", 2001L), "ids"),
                Arguments.of("getparam", args("ids", List.of("2001")), "ids"),
                Arguments.of("getparam", args("ids", List.of(0L)), "ids"),
                Arguments.of("getparam", args("ids", List.of(100000L)), "ids"),
                Arguments.of("getparam", args("ids", List.of(2001L, 2001L)), "ids"),
                Arguments.of("getparam", args("ids", tooMany), "ids"),
                Arguments.of("setparam", args(), "values"),
                Arguments.of("setparam", args("values", args()), "values"),
                Arguments.of("setparam", args("values", List.of("2001:wap")), "values"),
                Arguments.of("setparam", args("values", args("2001", "wap;2002:x")), "values"),
                Arguments.of("setparam", args("values", args("2001", "a:b")), "values"),
                Arguments.of("setparam", args("values", args("2001", "a\nb")), "values"),
                Arguments.of("setparam", args("values", args("2001", "a\u00e9")), "values"),
                Arguments.of("setparam", args("values", args("2001", "x".repeat(256))), "values"),
                Arguments.of("setparam", args("values", args("2001", true)), "values"),
                Arguments.of("setparam", args("values", args("2001", 1.5)), "values"),
                Arguments.of("setparam", args("values", withNull), "values"),
                Arguments.of("setparam", args("values", args("02001", "x")), "values"),
                Arguments.of("setparam", args("values", args("abc", "x")), "values"),
                Arguments.of("setparam", args("values", args("100000", "x")), "values"),
                Arguments.of("setparam", args("values", args("2001;2002", "x")), "values"),
                Arguments.of("setparam", args("values", tooManyValues), "values"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("badArguments")
    void aBadMissingOrExtraArgument_isRefusedNamingIt(String template, Map<String, Object> args, String argument) {
        Built built = CommandTemplates.build(template, args);
        assertThat(built).isInstanceOfSatisfying(BadArgument.class, bad -> {
            assertThat(bad.template()).isEqualTo(template);
            assertThat(bad.argument()).isEqualTo(argument);
            assertThat(bad.message()).startsWith(template).contains(argument.split(",")[0]);
            assertThat(bad.message()).as("printable, short").matches("[\\x20-\\x7E]{1,200}");
        });
    }

    @Test
    void theLongestArgumentsAllowed_areAccepted() {
        Map<String, Object> values = new LinkedHashMap<>();
        List<Long> ids = new ArrayList<>();
        for (long id = 1; id <= CommandTemplates.MAX_PARAMETERS; id++) {
            values.put(Long.toString(id), "v");
            ids.add(id);
        }
        assertThat(text("setparam", args("values", values))).startsWith("setparam 1:v;2:v;").endsWith(";50:v");
        assertThat(text("getparam", args("ids", ids))).startsWith("getparam 1;2;").endsWith(";50");
        assertThat(text("setparam", args("values", args("99999", "x".repeat(CommandTemplates.MAX_VALUE_LENGTH)))))
                .hasSize("setparam 99999:".length() + CommandTemplates.MAX_VALUE_LENGTH);
    }

    @Test
    void theCatalogue_namesEachTemplateOnce_andDescribesEveryArgument() {
        List<String> names = CommandTemplates.all().stream().map(CommandTemplate::name).toList();
        assertThat(names).containsExactly("getinfo", "getver", "getstatus", "getgps", "readio", "setdigout",
                "getparam", "setparam", "cpureset", "web_connect");
        for (CommandTemplate template : CommandTemplates.all()) {
            assertThat(template.syntax()).startsWith(template.name());
            assertThat(template.description()).isNotBlank();
            for (TemplateArgument argument : template.arguments()) {
                assertThat(argument.description()).as(template.name() + " " + argument.name()).isNotBlank();
                assertThat(Arrays.asList(TemplateArgument.INTEGER, TemplateArgument.INTEGER_LIST,
                        TemplateArgument.ID_VALUE_MAP)).contains(argument.type());
            }
        }
        TemplateArgument out1 = CommandTemplates.all().get(5).arguments().get(0);
        assertThat(out1.name()).isEqualTo("out1");
        assertThat(out1.required()).isFalse();
        assertThat(out1.allowed()).containsExactly(0L, 1L);
    }
}
