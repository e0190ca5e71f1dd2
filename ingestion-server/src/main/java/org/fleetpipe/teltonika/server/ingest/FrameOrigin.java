package org.fleetpipe.teltonika.server.ingest;

import java.net.InetAddress;

/**
 * Where refused bytes came from.
 *
 * @param address  the source address (null when unknown), for the per-address dead-letter rate
 * @param imei     the IMEI of the logged-in connection, or the one a datagram claims, or null
 * @param loggedIn true for a logged-in TCP connection; false for UDP and for bytes before login,
 *                 which anyone can send (and spoof, over UDP)
 */
public record FrameOrigin(InetAddress address, String imei, boolean loggedIn) {

    public static FrameOrigin loggedIn(InetAddress address, String imei) {
        return new FrameOrigin(address, imei, true);
    }

    public static FrameOrigin unauthenticated(InetAddress address, String claimedImei) {
        return new FrameOrigin(address, claimedImei, false);
    }
}
