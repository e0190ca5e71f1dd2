package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.bool;
import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.notNegative;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;

import com.typesafe.config.Config;
import org.fleetpipe.teltonika.server.command.CommandSettings;

/** Reads the {@code commands} section into the command package's {@link CommandSettings}. */
final class CommandsSection {

    private CommandsSection() {
    }

    static CommandSettings from(Config c) {
        return new CommandSettings(
                positive(c, "commands.reply-timeout"),
                positive(c, "commands.default-ttl"),
                positive(c, "commands.max-ttl"),
                intIn(c, "commands.max-queue-per-device", 1, 100_000),
                intIn(c, "commands.max-command-bytes", 1, 65_536),
                positive(c, "commands.max-wait"),
                positive(c, "commands.retention"),
                intIn(c, "commands.dead-letter-max-entries", 1, 10_000_000),
                positive(c, "commands.sweep-interval"),
                intIn(c, "commands.max-attempts", 1, CommandSettings.MAX_ATTEMPTS_LIMIT),
                notNegative(c, "commands.quiet-gap"),
                bool(c, "commands.model-from-getver"));
    }
}
