package org.fleetpipe.teltonika.server.config;

/**
 * The HTTP listener's own settings (its port is {@link ServerSettings#httpPort()}).
 *
 * @param bindAddress    the address it binds to; the device bind address unless set
 * @param maxConnections HTTP connections at once; more are answered 503 and closed
 */
public record HttpSettings(String bindAddress, int maxConnections) {
}
