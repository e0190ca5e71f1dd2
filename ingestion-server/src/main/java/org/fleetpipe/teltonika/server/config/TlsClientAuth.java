package org.fleetpipe.teltonika.server.config;

/** Whether devices on the TLS port present a client certificate, which binds their login IMEI (the CN). */
public enum TlsClientAuth {
    /** No certificate is asked for. */
    NONE("none"),
    /** One is asked for; a device without one still connects, one with a certificate must log in as its CN. */
    OPTIONAL("optional"),
    /** A handshake without a certificate that chains to TLS_CLIENT_CA_FILE fails. */
    REQUIRE("require");

    private final String label;

    TlsClientAuth(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The mode for a setting value already checked to be one of the labels. */
    static TlsClientAuth of(String label) {
        for (TlsClientAuth mode : values()) {
            if (mode.label.equals(label)) {
                return mode;
            }
        }
        throw new IllegalArgumentException(label);
    }
}
