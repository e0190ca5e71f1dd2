package org.fleetpipe.teltonika.server.tls;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The identity a device's client certificate vouches for: the common name (CN) of its subject,
 * which must be the device's IMEI. The chain was checked against {@code TLS_CLIENT_CA_FILE} in the
 * handshake; this only reads the name.
 */
public final class ClientCertificates {

    /** Stands for a certificate whose subject has no single CN: it matches no IMEI. */
    public static final String NO_SINGLE_CN = "";

    private ClientCertificates() {
    }

    /**
     * The CN of the client certificate presented on {@code channel}'s TLS session; null when the
     * connection is not TLS or the device presented none; {@link #NO_SINGLE_CN} when the subject has
     * no CN or more than one.
     */
    public static String commonName(Channel channel) {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return null;
        }
        Certificate[] chain;
        try {
            chain = ssl.engine().getSession().getPeerCertificates();
        } catch (SSLPeerUnverifiedException none) {
            return null;
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
            return null;
        }
        return commonName(leaf);
    }

    static String commonName(X509Certificate leaf) {
        List<String> names = new ArrayList<>();
        try {
            for (Rdn rdn : new LdapName(leaf.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    names.add(String.valueOf(rdn.getValue()));
                }
            }
        } catch (InvalidNameException e) {
            return NO_SINGLE_CN;
        }
        return names.size() == 1 ? names.get(0) : NO_SINGLE_CN;
    }

    /** {@code name} fit for a log line: letters, digits, '.', '-' and '_' only, at most 64 characters. */
    public static String shown(String name) {
        String kept = name.replaceAll("[^0-9A-Za-z._-]", "?");
        return kept.length() > 64 ? kept.substring(0, 64) + "..." : kept;
    }
}
