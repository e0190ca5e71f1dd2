package org.fleetpipe.teltonika.simulator.cli;

import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Turns option text into values for picocli; a refusal says what was expected (the option's name is added later). */
final class OptionValues {

    private OptionValues() {
    }

    /** Registers the converters for every value type {@link SimulatorCommand} takes. */
    static CommandLine register(CommandLine commandLine) {
        ITypeConverter<Long> wholeNumber = OptionValues::wholeNumber;
        return commandLine.registerConverter(Long.TYPE, wholeNumber)
                .registerConverter(Long.class, wholeNumber)
                .registerConverter(Duration.class, OptionValues::duration)
                .registerConverter(CodecChoice.class, OptionValues::codec)
                .registerConverter(TransportChoice.class, OptionValues::transport);
    }

    private static Long wholeNumber(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("expected a whole number, got '" + value + "'");
        }
    }

    private static Duration duration(String value) {
        Duration d = DurationText.parse(value);
        if (d == null) {
            throw new TypeConversionException("expected a duration such as 500ms, 5s, 2m, got '" + value + "'");
        }
        return d;
    }

    private static CodecChoice codec(String value) {
        CodecChoice choice = CodecChoice.parse(value);
        if (choice == null) {
            throw new TypeConversionException("expected 8, 8E, 16 or mixed, got '" + value + "'");
        }
        return choice;
    }

    private static TransportChoice transport(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "tcp" -> TransportChoice.TCP;
            case "udp" -> TransportChoice.UDP;
            default -> throw new TypeConversionException("expected tcp or udp, got '" + value + "'");
        };
    }
}
