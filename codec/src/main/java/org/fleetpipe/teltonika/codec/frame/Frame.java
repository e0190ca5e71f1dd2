package org.fleetpipe.teltonika.codec.frame;

/** One unit the TCP framer cuts from the byte stream. */
public sealed interface Frame permits LoginFrame, DataFrame, PingFrame {
}
