package org.fleetpipe.teltonika.server.command;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The named commands an operator may send instead of hand-typed text, each building the exact text
 * Teltonika documents for its SMS/GPRS commands (sent over GPRS, so without the SMS login and
 * password): {@code getinfo}, {@code readio 21}, {@code setdigout ?1}, {@code getparam 2001;2002},
 * {@code setparam 2001:wap;2002:user} ...
 */
public final class CommandTemplates {

    /** What building a template's text came to. */
    public sealed interface Built permits Text, UnknownTemplate, BadArgument {
    }

    /** The text {@code template} built. */
    public record Text(String template, String text) implements Built {
    }

    /** No template is named so. */
    public record UnknownTemplate(String name) implements Built {
    }

    /** {@code argument} of {@code template} is missing, not one it takes, or not what it accepts. */
    public record BadArgument(String template, String argument, String message) implements Built {
    }

    /** The most ids one getparam or setparam names. */
    public static final int MAX_PARAMETERS = 50;
    /** The longest value setparam sets (a device's longest text parameters are shorter). */
    public static final int MAX_VALUE_LENGTH = 255;
    /** Parameter ids have 1 to 5 digits; the device refuses longer ones. */
    private static final long MAX_PARAMETER_ID = 99_999;
    /** IO element ids are two bytes in Codec 8 Extended. */
    private static final long MAX_IO_ID = 65_535;
    private static final List<String> OUTPUTS = List.of("out1", "out2", "out3", "out4");

    private static final List<CommandTemplate> ALL = List.of(
            CommandTemplate.plain("getinfo", "device runtime information (network, GNSS, records)"),
            CommandTemplate.plain("getver", "firmware version, IMEI, modem version, uptime"),
            CommandTemplate.plain("getstatus", "modem status"),
            CommandTemplate.plain("getgps", "current GNSS data, date and time"),
            new CommandTemplate("readio", "readio <id>", "the current value of one IO element",
                    List.of(TemplateArgument.integer("id", true, 1, MAX_IO_ID, "the IO element's id, e.g. 21")),
                    args -> "readio " + args.get("id")),
            new CommandTemplate("setdigout", "setdigout <out1><out2>... (? leaves an output unchanged)",
                    "sets digital outputs on (1) or off (0); an output not given stays as it is (?), outputs"
                            + " after the last one given are not named, so a device with fewer outputs accepts it",
                    OUTPUTS.stream().map(out -> TemplateArgument.oneOf(out, false, List.of(0L, 1L),
                            "DOUT" + out.substring(3) + ": 0 off, 1 on, absent unchanged")).toList(),
                    CommandTemplates::setdigout),
            new CommandTemplate("getparam", "getparam <id>;<id>...", "reads configuration parameters",
                    List.of(TemplateArgument.integerList("ids", 1, MAX_PARAMETER_ID, MAX_PARAMETERS,
                            "parameter ids, e.g. [2001, 2002]")),
                    args -> "getparam " + joined(((List<?>) args.get("ids")).stream().map(String::valueOf).toList())),
            new CommandTemplate("setparam", "setparam <id>:<value>;<id>:<value>...",
                    "sets configuration parameters, in the order given",
                    List.of(TemplateArgument.idValueMap("values", 1, MAX_PARAMETER_ID, MAX_PARAMETERS,
                            MAX_VALUE_LENGTH, "parameter id to value, e.g. {\"2001\": \"internet\", \"1000\": 300};"
                                    + " a value is a whole number or printable ASCII without ';' and ':'")),
                    CommandTemplates::setparam),
            CommandTemplate.plain("cpureset", "restarts the device; it does not answer, so send it with"
                    + " max_attempts 1 (else it is sent again when the connection drops)"),
            CommandTemplate.plain("web_connect", "the device connects to FOTA WEB (Teltonika's device"
                    + " management) now"));

    private static final Map<String, CommandTemplate> BY_NAME = byName();

    private CommandTemplates() {
    }

    /** Every template, in the order the listing shows them. */
    public static List<CommandTemplate> all() {
        return ALL;
    }

    /**
     * The text template {@code name} builds from {@code args} (JSON's plain Java values, see
     * {@link TemplateArgument}); an unknown argument is refused before a bad or missing one, and
     * arguments are checked in the template's order.
     */
    public static Built build(String name, Map<String, ?> args) {
        CommandTemplate template = BY_NAME.get(name);
        if (template == null) {
            return new UnknownTemplate(name);
        }
        for (String given : args.keySet()) {
            if (template.arguments().stream().noneMatch(a -> a.name().equals(given))) {
                return new BadArgument(name, given, name + " takes no argument '" + shown(given)
                        + "'; its arguments: " + template.argumentNames());
            }
        }
        Map<String, Object> values = new LinkedHashMap<>();
        for (TemplateArgument argument : template.arguments()) {
            Object value = args.get(argument.name());
            if (value == null && args.containsKey(argument.name())) {
                return new BadArgument(name, argument.name(), name + ": " + argument.name()
                        + " may be left out but not null");
            }
            if (value == null) {
                if (argument.required()) {
                    return new BadArgument(name, argument.name(), name + " needs " + argument.name());
                }
                continue;
            }
            try {
                values.put(argument.name(), argument.check(value));
            } catch (IllegalArgumentException e) {
                return new BadArgument(name, argument.name(), name + ": " + argument.name() + " " + e.getMessage());
            }
        }
        try {
            return new Text(name, template.text().apply(values));
        } catch (IllegalArgumentException e) {
            // What no single argument decides, e.g. setdigout without any output.
            return new BadArgument(name, template.argumentNames(), name + " " + e.getMessage());
        }
    }

    /** Text a client sent, for a message: printable and short. */
    static String shown(String text) {
        String cut = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        return cut.replaceAll("[^\\x20-\\x7E]", "?");
    }

    /** {@code setdigout 1?0}: one character per output up to the last one given, {@code ?} for unchanged. */
    private static String setdigout(Map<String, Object> args) {
        if (args.isEmpty()) {
            throw new IllegalArgumentException("needs at least one of " + String.join(", ", OUTPUTS));
        }
        int last = 0;
        for (int i = 0; i < OUTPUTS.size(); i++) {
            if (args.containsKey(OUTPUTS.get(i))) {
                last = i;
            }
        }
        StringBuilder text = new StringBuilder("setdigout ");
        for (int i = 0; i <= last; i++) {
            Object state = args.get(OUTPUTS.get(i));
            text.append(state == null ? "?" : state.toString());
        }
        return text.toString();
    }

    private static String setparam(Map<String, Object> args) {
        StringJoiner pairs = new StringJoiner(";", "setparam ", "");
        ((Map<?, ?>) args.get("values")).forEach((id, value) -> pairs.add(id + ":" + value));
        return pairs.toString();
    }

    private static String joined(List<String> ids) {
        return String.join(";", ids);
    }

    private static Map<String, CommandTemplate> byName() {
        Map<String, CommandTemplate> byName = new LinkedHashMap<>();
        for (CommandTemplate template : ALL) {
            if (byName.put(template.name(), template) != null) {
                throw new IllegalStateException("two templates named " + template.name());
            }
        }
        return byName;
    }
}
