package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.ROOT;
import static org.fleetpipe.teltonika.server.config.SettingValues.oneOf;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;
import static org.fleetpipe.teltonika.server.config.SettingValues.refuse;
import static org.fleetpipe.teltonika.server.config.SettingValues.string;

import com.typesafe.config.Config;
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

    static TlsSettings from(Config c) {
        int port = SettingValues.port(c, "tls.port");
        String cert = string(c, "tls.cert-file").trim();
        String key = string(c, "tls.key-file").trim();
        if (port > 0 && (cert.isEmpty() || key.isEmpty())) {
            throw refuse(c, "tls.port", "needs TLS_CERT_FILE (" + ROOT + ".tls.cert-file) and TLS_KEY_FILE ("
                    + ROOT + ".tls.key-file)");
        }
        TlsClientAuth clientAuth = TlsClientAuth.of(oneOf(c, "tls.client-auth", TlsClientAuth.NONE.label(),
                TlsClientAuth.OPTIONAL.label(), TlsClientAuth.REQUIRE.label()));
        String clientCa = string(c, "tls.client-ca-file").trim();
        if (clientAuth != TlsClientAuth.NONE && clientCa.isEmpty()) {
            throw refuse(c, "tls.client-auth", "needs TLS_CLIENT_CA_FILE (" + ROOT + ".tls.client-ca-file), the PEM"
                    + " certificates the devices' certificates chain to");
        }
        if (clientAuth != TlsClientAuth.NONE && port == 0) {
            throw refuse(c, "tls.client-auth", "needs TLS_PORT (" + ROOT + ".tls.port): client certificates are"
                    + " asked for on the TLS port only");
        }
        return new TlsSettings(port, cert, key, positive(c, "tls.handshake-timeout"), positive(c, "tls.reload-check"),
                clientAuth, clientCa);
    }

    public boolean enabled() {
        return port > 0;
    }
}
