package org.fleetpipe.teltonika.server.config;

/** A setting is missing or wrong; the message names the key in one line. */
public final class SettingsException extends RuntimeException {

    public SettingsException(String message) {
        super(message);
    }

    public SettingsException(String message, Throwable cause) {
        super(message, cause);
    }
}
