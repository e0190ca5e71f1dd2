package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.testing.ServerMeters;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS listener's rules, against real sockets and the JDK's own client: forward-secret suites
 * only, no client-initiated renegotiation, and client certificates that bind the login IMEI.
 */
@WithRedis
class TlsHardeningIT {

    private static final String IMEI = "352093081452251";
    private static final String OTHER_IMEI = "490154203237518";

    @TempDir
    Path dir;
    private RedisFixture redis;
    private IngestionServer server;
    private TestCertificates.Issued ca;

    @BeforeEach
    void certificates(RedisFixture redis) throws Exception {
        this.redis = redis;
        ca = TestCertificates.authority("Fleet device CA");
        Files.writeString(dir.resolve("ca.pem"), TestCertificates.pem("CERTIFICATE", ca.certificate().getEncoded()));
        TestCertificates.write(TestCertificates.selfSigned("CN=devices.example"), dir.resolve("cert.pem"),
                dir.resolve("key.pem"));
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private void start(String clientAuth) throws Exception {
        Map<String, Object> settings = new HashMap<>(Map.of("redis.url", redis.uri(), "tcp-port", 0, "udp-port", 0,
                "http-port", 0, "bind-address", "127.0.0.1", "tls.port", ServerProcess.freePort(),
                "tls.cert-file", dir.resolve("cert.pem").toString(), "tls.key-file", dir.resolve("key.pem").toString()));
        settings.put("tls.client-auth", clientAuth);
        if (!clientAuth.equals("none")) {
            settings.put("tls.client-ca-file", dir.resolve("ca.pem").toString());
        }
        server = new IngestionServer(SettingsLoader.load(settings)).start();
    }

    /** A JDK client socket, not yet handshaken, presenting {@code keys} (null: no certificate). */
    private SSLSocket client(KeyManager[] keys) throws Exception {
        return TestCertificates.trustingClient(keys, server.tlsAddress().getPort());
    }

    /** Handshake, login, the answer byte; -1 when the server closed or the TLS session failed instead. */
    private static int login(SSLSocket socket, String imei) {
        try {
            socket.startHandshake();
            OutputStream out = socket.getOutputStream();
            byte[] text = imei.getBytes(StandardCharsets.US_ASCII);
            out.write(new byte[] {0, (byte) text.length});
            out.write(text);
            out.flush();
            return socket.getInputStream().read();
        } catch (IOException refused) {
            return -1;
        }
    }

    private static void sendAndExpectAck(SSLSocket socket) throws IOException {
        socket.getOutputStream().write(GoldenVectors.ofKind("avl").get(0).bytes());
        assertThat(new DataInputStream(socket.getInputStream()).readInt()).isEqualTo(1);
    }

    private KeyManager[] deviceCertificate(String subject) throws Exception {
        return TestCertificates.clientKeys(TestCertificates.signedBy(ca, subject), ca.certificate());
    }

    @Test
    void aSuiteWithoutForwardSecrecy_offeredAlone_isRefused_anEcdheOneIsTaken() throws Exception {
        start("none");

        try (SSLSocket staticRsa = client(null)) {
            staticRsa.setEnabledProtocols(new String[] {"TLSv1.2"});
            staticRsa.setEnabledCipherSuites(new String[] {"TLS_RSA_WITH_AES_128_GCM_SHA256"});
            // "Received": the server said no; a client that could not even offer it would fail on its own.
            assertThatThrownBy(staticRsa::startHandshake).isInstanceOf(SSLHandshakeException.class)
                    .hasMessageContaining("Received fatal alert");
        }
        try (SSLSocket ecdhe = client(null)) {
            ecdhe.setEnabledProtocols(new String[] {"TLSv1.2"});
            ecdhe.setEnabledCipherSuites(new String[] {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"});
            assertThat(login(ecdhe, IMEI)).isEqualTo(1);
            assertThat(ecdhe.getSession().getCipherSuite()).isEqualTo("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
        }
    }

    @Test
    void aRenegotiationStartedByTheClient_isRefused_andTheConnectionClosed() throws Exception {
        start("none");

        try (SSLSocket socket = client(null)) {
            // TLS 1.3 has no renegotiation; 1.2 does, unless the server refuses it.
            socket.setEnabledProtocols(new String[] {"TLSv1.2"});
            assertThat(login(socket, IMEI)).isEqualTo(1);
            int answer;
            try {
                socket.startHandshake();
                socket.getOutputStream().write(GoldenVectors.ofKind("avl").get(0).bytes());
                answer = socket.getInputStream().read();
            } catch (IOException refused) {
                answer = -1;
            }
            assertThat(answer).as("no ACK after the renegotiation attempt: the connection is gone").isEqualTo(-1);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> server.sessions().size() == 0);
    }

    @Test
    void requiredClientCertificate_missing_failsTheHandshake_andNothingLogsIn() throws Exception {
        start("require");

        try (SSLSocket socket = client(null)) {
            assertThat(login(socket, IMEI)).isEqualTo(-1);
        }
        assertThat(server.sessions().size()).isZero();
    }

    @Test
    void requiredClientCertificate_whoseCnIsTheImei_logsIn_andItsPacketIsAcked() throws Exception {
        start("require");

        try (SSLSocket socket = client(deviceCertificate("CN=" + IMEI + ",O=Fleet"))) {
            assertThat(login(socket, IMEI)).isEqualTo(1);
            sendAndExpectAck(socket);
        }
    }

    @Test
    void aCertificateForAnotherImei_isRefusedAtLogin_andCountedAsACertificateMismatch() throws Exception {
        start("require");

        try (SSLSocket socket = client(deviceCertificate("CN=" + OTHER_IMEI))) {
            assertThat(login(socket, IMEI)).isZero();
            assertThat(socket.getInputStream().read()).as("closed after the 0x00").isEqualTo(-1);
        }
        assertThat(ServerMeters.count(server, "teltonika.logins", "reason", "certificate-mismatch")).isEqualTo(1);
        assertThat(server.sessions().size()).isZero();
    }

    @Test
    void optionalClientCertificate_aDeviceWithoutOneLogsIn_aMatchingOneToo_anUntrustedOneFailsTheHandshake()
            throws Exception {
        start("optional");

        try (SSLSocket without = client(null)) {
            assertThat(login(without, IMEI)).isEqualTo(1);
        }
        try (SSLSocket matching = client(deviceCertificate("CN=" + OTHER_IMEI))) {
            assertThat(login(matching, OTHER_IMEI)).isEqualTo(1);
        }
        TestCertificates.Issued stranger = TestCertificates.selfSigned("CN=" + IMEI);
        try (SSLSocket untrusted = client(TestCertificates.clientKeys(stranger))) {
            assertThat(login(untrusted, IMEI)).isEqualTo(-1);
        }
    }
}
