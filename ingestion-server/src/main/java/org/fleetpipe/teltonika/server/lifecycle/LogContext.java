package org.fleetpipe.teltonika.server.lifecycle;

import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

/** Puts the instance id on every log line (text and JSON), and keeps it current after a re-incarnation. */
public final class LogContext {

    private LogContext() {
    }

    public static void instance(String id) {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.putProperty("instance", id);
        }
    }
}
