package org.fleetpipe.teltonika.server.tcp;

/** Names of the device pipeline's handlers, for replace() and for tests. */
final class HandlerNames {
    static final String TRACKER = "tracker";
    static final String PRE_LOGIN = "pre-login";
    static final String TLS = "tls";
    static final String IDLE = "idle";
    static final String FRAMES = "frames";
    static final String CAPTURE = "capture";
    static final String SEQUENCER = "sequencer";
    static final String LOGIN = "login";
    static final String DEVICE_RATE = "device-rate";
    static final String TELEMETRY = "telemetry";
    static final String COMMANDS = "commands";
    static final String EVENTS = "events";

    private HandlerNames() {
    }
}
