package org.fleetpipe.teltonika.server.config;

import java.time.Duration;

/**
 * The optional device TLS listener.
 *
 * @param port         0 = off
 * @param certFile     PEM certificate chain
 * @param keyFile      PEM private key (PKCS#8 or PKCS#1 RSA)
 * @param clientAuth   whether devices present a client certificate
 * @param clientCaFile PEM trust anchors of the client certificates; empty when {@code clientAuth} is none
 */
public record TlsSettings(int port, String certFile, String keyFile, Duration handshakeTimeout,
                          Duration reloadCheck, TlsClientAuth clientAuth, String clientCaFile) {

    public boolean enabled() {
        return port > 0;
    }
}
