package org.fleetpipe.teltonika.codec.frame;

/** The one-byte {@code 0xFF} keep-alive a device may send between packets. */
public enum PingFrame implements Frame {
    INSTANCE
}
