package org.fleetpipe.teltonika.simulator.net;

/** The server's one-byte answer to the IMEI login. */
public record LoginAnswer(boolean accepted) {
}
