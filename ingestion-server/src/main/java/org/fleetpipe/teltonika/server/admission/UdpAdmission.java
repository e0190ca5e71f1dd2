package org.fleetpipe.teltonika.server.admission;

/** Which IMEIs may send over UDP in open admission mode (in allow-list mode the allow-list decides). */
public enum UdpAdmission {
    /** Only IMEIs that logged in over TCP recently: their {@code device:info:{imei}} exists. */
    TCP_KNOWN("tcp-known"),
    /**
     * As TCP_KNOWN, and only from the source network (/24, /64) of the IMEI's current or last TCP
     * session: a datagram spoofed from elsewhere naming a known IMEI is refused.
     */
    TCP_NETWORK("tcp-network"),
    /** Every IMEI not on the deny-list, as over TCP. */
    ANY("any");

    private final String label;

    UdpAdmission(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The value for a setting text, or null. */
    public static UdpAdmission of(String text) {
        for (UdpAdmission a : values()) {
            if (a.label.equalsIgnoreCase(text.trim())) {
                return a;
            }
        }
        return null;
    }
}
