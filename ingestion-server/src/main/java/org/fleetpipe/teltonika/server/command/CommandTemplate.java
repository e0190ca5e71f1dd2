package org.fleetpipe.teltonika.server.command;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One named command: the arguments it takes and how it builds the text Teltonika documents.
 *
 * @param syntax what the text looks like, e.g. {@code readio <id>}
 * @param text   builds the text from the arguments given, each already in its normal form
 *               ({@link TemplateArgument#check}); an optional one that was not given is absent
 */
public record CommandTemplate(String name, String syntax, String description, List<TemplateArgument> arguments,
                              Function<Map<String, Object>, String> text) {

    public CommandTemplate {
        arguments = List.copyOf(arguments);
    }

    /** A template without arguments whose text is its name. */
    static CommandTemplate plain(String name, String description) {
        return new CommandTemplate(name, name, description, List.of(), args -> name);
    }

    /** The names of its arguments, for a message. */
    String argumentNames() {
        return arguments.isEmpty() ? "none" : String.join(", ", arguments.stream().map(TemplateArgument::name).toList());
    }
}
