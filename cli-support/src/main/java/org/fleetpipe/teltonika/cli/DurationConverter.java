package org.fleetpipe.teltonika.cli;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Picocli's converter of every tool's duration options ({@code converter = DurationConverter.class}):
 * {@link DurationText}'s grammar, not picocli's built-in ISO-8601 only.
 */
public final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        try {
            return DurationText.parse(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
