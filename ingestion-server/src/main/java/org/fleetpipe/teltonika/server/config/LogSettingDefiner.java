package org.fleetpipe.teltonika.server.config;

import ch.qos.logback.core.PropertyDefinerBase;

/**
 * Gives logback.xml the log level or format from the settings ({@code LOG_LEVEL}, {@code LOG_FORMAT}),
 * in any case: logback itself would take {@code JSON} for an appender name nobody has and log nothing.
 */
public final class LogSettingDefiner extends PropertyDefinerBase {

    private String setting;

    /** {@code level} or {@code format}, from logback.xml. */
    public void setSetting(String setting) {
        this.setting = setting;
    }

    @Override
    public String getPropertyValue() {
        return "format".equals(setting) ? SettingsLoader.logFormat() : SettingsLoader.logLevel();
    }
}
