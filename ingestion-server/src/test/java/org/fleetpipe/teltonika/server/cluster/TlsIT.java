package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.Date;
import java.util.Map;
import javax.net.ssl.SSLSocket;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Devices over TLS: login, AVL and ACK; certificate rotation; plain text on the TLS port. */
@WithRedis
class TlsIT {

    private static final String IMEI = "352093081452251";
    private static final java.util.concurrent.atomic.AtomicLong SERIALS =
            new java.util.concurrent.atomic.AtomicLong(System.currentTimeMillis());

    @TempDir
    Path dir;
    private IngestionServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    /** A self-signed certificate for {@code name}; the key as PKCS#1 or PKCS#8 PEM. */
    private X509Certificate writeCertificate(String name, boolean pkcs1) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        KeyPair keys = generator.generateKeyPair();
        X500Name subject = new X500Name("CN=" + name);
        long now = System.currentTimeMillis();
        X509Certificate cert = new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(
                subject, BigInteger.valueOf(SERIALS.incrementAndGet()), new Date(now - 60_000), new Date(now + 86_400_000L), subject,
                keys.getPublic()).build(new JcaContentSignerBuilder("SHA256withRSA").build(keys.getPrivate())));
        byte[] key = pkcs1 ? PrivateKeyInfo.getInstance(keys.getPrivate().getEncoded()).parsePrivateKey()
                .toASN1Primitive().getEncoded() : keys.getPrivate().getEncoded();
        // Write next to and then move over the old files, as a secret rotation replaces them.
        Files.writeString(dir.resolve("cert.tmp"), pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(dir.resolve("key.tmp"), pem(pkcs1 ? "RSA PRIVATE KEY" : "PRIVATE KEY", key));
        Files.move(dir.resolve("key.tmp"), dir.resolve("key.pem"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.move(dir.resolve("cert.tmp"), dir.resolve("cert.pem"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return cert;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    private IngestionServer start(RedisFixture redis) throws Exception {
        server = new IngestionServer(SettingsLoader.load(Map.of("redis.url", redis.uri(), "tcp-port", 0,
                "udp-port", 0, "http-port", 0, "health-port", 0, "bind-address", "127.0.0.1",
                "tls.port", ServerProcess.freePort(), "tls.cert-file", dir.resolve("cert.pem").toString(),
                "tls.key-file", dir.resolve("key.pem").toString(), "tls.reload-check", "200ms"))).start();
        return server;
    }

    private SSLSocket tls() throws Exception {
        // The test trusts whatever the server presents; it checks the certificate itself below.
        SSLSocket socket = TestCertificates.trustingClient(null, server.tlsAddress().getPort());
        socket.startHandshake();
        return socket;
    }

    private static void loginAndSend(Socket socket) throws IOException {
        OutputStream out = socket.getOutputStream();
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] imei = IMEI.getBytes(StandardCharsets.US_ASCII);
        out.write(new byte[] {0, (byte) imei.length});
        out.write(imei);
        assertThat(in.readUnsignedByte()).isEqualTo(1);
        out.write(GoldenVectors.ofKind("avl").get(0).bytes());
        assertThat(in.readInt()).isEqualTo(1);
    }

    private static BigInteger serial(SSLSocket socket) throws Exception {
        return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
    }

    @Test
    void deviceOverTls_logsIn_andItsPacketIsAcked_withAPkcs1Key(RedisFixture redis) throws Exception {
        writeCertificate("devices.example", true);
        start(redis);

        try (SSLSocket socket = tls()) {
            assertThat(socket.getSession().getProtocol()).isIn("TLSv1.3", "TLSv1.2");
            loginAndSend(socket);
        }
    }

    @Test
    void renewedCertificate_isUsedForNewConnections_andOldSessionsKeepWorking(RedisFixture redis) throws Exception {
        X509Certificate first = writeCertificate("first.example", false);
        start(redis);
        SSLSocket old = tls();
        assertThat(serial(old)).isEqualTo(first.getSerialNumber());
        loginAndSend(old);

        X509Certificate second = writeCertificate("second.example", false);

        await().atMost(Duration.ofSeconds(10)).until(() -> {
            try (SSLSocket fresh = tls()) {
                return serial(fresh).equals(second.getSerialNumber());
            }
        });
        // The old session is untouched: another packet on it is acked.
        old.getOutputStream().write(GoldenVectors.ofKind("avl").get(1).bytes());
        assertThat(new DataInputStream(old.getInputStream()).readInt()).isEqualTo(1);
        old.close();
    }

    @Test
    void plainTextOnTheTlsPort_isClosed_neverAdmitted(RedisFixture redis) throws Exception {
        writeCertificate("devices.example", false);
        start(redis);

        try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), server.tlsAddress().getPort())) {
            plain.setSoTimeout(10_000);
            plain.getOutputStream().write(new byte[] {0, 15});
            plain.getOutputStream().write(IMEI.getBytes(StandardCharsets.US_ASCII));
            int answer;
            try {
                answer = plain.getInputStream().read();
            } catch (IOException reset) {
                answer = -1;
            }
            assertThat(answer).as("no 0x01: the connection is closed").isEqualTo(-1);
        }
        assertThat(server.sessions().size()).isZero();
    }
}
