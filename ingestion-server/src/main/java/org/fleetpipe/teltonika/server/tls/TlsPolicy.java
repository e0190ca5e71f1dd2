package org.fleetpipe.teltonika.server.tls;

import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * What the device TLS listener negotiates: TLS 1.2 and 1.3 only, forward-secret cipher suites only
 * (ECDHE or DHE key exchange in TLS 1.2; every TLS 1.3 suite is), and no renegotiation started by
 * a client (a cheap way to make the server do a full handshake's work again and again).
 */
final class TlsPolicy {

    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    /**
     * The JDK provider reads this once, when its first server handshake starts, so it is set before
     * any context of the listener exists (the static initializer of {@link ReloadingSslContext}).
     * TLS 1.3 has no renegotiation at all; this closes it for TLS 1.2.
     */
    static final String REJECT_CLIENT_RENEGOTIATION = "jdk.tls.rejectClientInitiatedRenegotiation";

    private TlsPolicy() {
    }

    /** Sets the JDK's switch that refuses client-initiated renegotiation, whatever it was. */
    static void refuseClientRenegotiation() {
        System.setProperty(REJECT_CLIENT_RENEGOTIATION, "true");
    }

    /** The JDK's enabled-by-default suites that are forward-secret, in the JDK's order of preference. */
    static List<String> cipherSuites() {
        try {
            return Arrays.stream(SSLContext.getDefault().getDefaultSSLParameters().getCipherSuites())
                    .filter(TlsPolicy::forwardSecret).toList();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no default TLS context", e);
        }
    }

    /** True for a TLS 1.3 suite or an ephemeral (EC)DHE TLS 1.2 suite with real encryption. */
    static boolean forwardSecret(String suite) {
        boolean tls13 = suite.startsWith("TLS_AES_") || suite.startsWith("TLS_CHACHA20_");
        boolean ephemeral = suite.startsWith("TLS_ECDHE_") || suite.startsWith("TLS_DHE_");
        boolean weak = suite.contains("_NULL_") || suite.contains("_anon_") || suite.contains("_RC4_")
                || suite.contains("DES_") || suite.contains("_EXPORT");
        return (tls13 || ephemeral) && !weak;
    }
}
