package org.fleetpipe.teltonika.simulator.cli;

/** The {@code --transport} choice. */
public enum TransportChoice {
    TCP,
    UDP
}
