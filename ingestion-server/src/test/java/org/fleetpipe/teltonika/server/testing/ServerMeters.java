package org.fleetpipe.teltonika.server.testing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import org.fleetpipe.teltonika.server.IngestionServer;

/** Reads a running server's meters by their Micrometer names. */
public final class ServerMeters {

    private ServerMeters() {
    }

    /** A counter's count, 0 when it does not exist. */
    public static double count(IngestionServer server, String name, String tag, String value) {
        Counter c = server.metrics().registry().find(name).tag(tag, value).counter();
        return c == null ? 0 : c.count();
    }

    /** A function counter's count (a count kept by the component itself), 0 when it does not exist. */
    public static double functionCount(IngestionServer server, String name, String tag, String value) {
        FunctionCounter c = server.metrics().registry().find(name).tag(tag, value).functionCounter();
        return c == null ? 0 : c.count();
    }

    public static double gauge(IngestionServer server, String name) {
        Gauge g = server.metrics().registry().find(name).gauge();
        return g == null ? Double.NaN : g.value();
    }
}
