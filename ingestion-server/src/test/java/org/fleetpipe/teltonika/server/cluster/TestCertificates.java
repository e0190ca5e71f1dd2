package org.fleetpipe.teltonika.server.cluster;

import java.net.InetAddress;
import javax.net.ssl.X509TrustManager;
import javax.net.ssl.TrustManager;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLContext;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManager;
import javax.net.ssl.X509ExtendedKeyManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Certificates made in the test: a CA, certificates it signs, PEM files and client key managers. */
final class TestCertificates {

    private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());

    /** A key pair and its certificate. */
    record Issued(KeyPair keys, X509Certificate certificate) {
    }

    private TestCertificates() {
    }

    /** A self-signed CA certificate named {@code name}. */
    static Issued authority(String name) throws Exception {
        KeyPair keys = rsa();
        X500Name subject = new X500Name("CN=" + name);
        X509v3CertificateBuilder builder = builder(subject, subject, keys);
        builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        return new Issued(keys, sign(builder, keys));
    }

    /** A certificate for {@code subject} (an X.500 name such as {@code CN=352093081452251}) signed by {@code ca}. */
    static Issued signedBy(Issued ca, String subject) throws Exception {
        KeyPair keys = rsa();
        JcaX509v3CertificateBuilder builder = builder(X500Name.getInstance(ca.certificate().getSubjectX500Principal()
                .getEncoded()), new X500Name(subject), keys);
        return new Issued(keys, sign(builder, ca.keys()));
    }

    /** A self-signed certificate for {@code subject}: one no CA of the test vouches for. */
    static Issued selfSigned(String subject) throws Exception {
        KeyPair keys = rsa();
        X500Name name = new X500Name(subject);
        return new Issued(keys, sign(builder(name, name, keys), keys));
    }

    /** Writes {@code issued}'s certificate to {@code cert} and its PKCS#8 key to {@code key}, as PEM. */
    static void write(Issued issued, Path cert, Path key) throws Exception {
        Files.writeString(cert, pem("CERTIFICATE", issued.certificate().getEncoded()));
        Files.writeString(key, pem("PRIVATE KEY", issued.keys().getPrivate().getEncoded()));
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    /**
     * Key managers that always present {@code device} (with {@code chain} above it) as the client
     * certificate, even when the server's list of accepted issuers does not name its CA (the JDK's own
     * key manager would then send none).
     */
    static KeyManager[] clientKeys(Issued device, X509Certificate... chain) {
        X509Certificate[] full = new X509Certificate[chain.length + 1];
        full[0] = device.certificate();
        System.arraycopy(chain, 0, full, 1, chain.length);
        return new KeyManager[] {new X509ExtendedKeyManager() {
            @Override
            public String[] getClientAliases(String keyType, Principal[] issuers) {
                return new String[] {"device"};
            }

            @Override
            public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
                return "device";
            }

            @Override
            public String[] getServerAliases(String keyType, Principal[] issuers) {
                return null;
            }

            @Override
            public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
                return null;
            }

            @Override
            public X509Certificate[] getCertificateChain(String alias) {
                return full.clone();
            }

            @Override
            public PrivateKey getPrivateKey(String alias) {
                return device.keys().getPrivate();
            }
        }};
    }

    /**
     * A JDK client socket to the TLS port on loopback, not yet handshaken, presenting {@code keys}
     * (null: no certificate) and trusting whatever the server presents (what a test checks lies elsewhere).
     */
    static SSLSocket trustingClient(KeyManager[] keys, int port) throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String type) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String type) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, null);
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static KeyPair rsa() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    private static JcaX509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        long now = System.currentTimeMillis();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIALS.incrementAndGet()),
                new Date(now - 60_000), new Date(now + 86_400_000L), subject, keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer) throws Exception {
        return new JcaX509CertificateConverter().getCertificate(builder.build(
                new JcaContentSignerBuilder("SHA256withRSA").build(signer.getPrivate())));
    }
}
