package org.fleetpipe.teltonika.server.tls;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.server.config.TlsClientAuth;
import org.fleetpipe.teltonika.server.config.TlsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device TLS context, rebuilt when the certificate or key file changes (Kubernetes rotates
 * secret files in place). New connections use the newest context; existing sessions keep theirs.
 * A file that does not load keeps the previous context, with a warning. The negotiation rules are
 * {@link TlsPolicy}'s; with {@code TLS_CLIENT_AUTH} the devices' certificates must chain to the
 * trust anchors of {@code TLS_CLIENT_CA_FILE}, reloaded the same way.
 */
public final class ReloadingSslContext implements Supplier<SslContext>, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReloadingSslContext.class);

    static {
        // Before the first server handshake can start: no context of this listener exists before this.
        TlsPolicy.refuseClientRenegotiation();
    }

    private final Path certFile;
    private final Path keyFile;
    private final TlsClientAuth clientAuth;
    private final Path clientCaFile;
    private final AtomicReference<SslContext> current = new AtomicReference<>();
    private final PeriodicJobs.Job job;
    private volatile String loadedStamp;

    /** Loads at once; a bad certificate or key stops the start with the reason. Checks for a change on {@code jobs}. */
    public ReloadingSslContext(TlsSettings settings, PeriodicJobs jobs) {
        this.certFile = Path.of(settings.certFile());
        this.keyFile = Path.of(settings.keyFile());
        this.clientAuth = settings.clientAuth();
        this.clientCaFile = clientAuth == TlsClientAuth.NONE ? null : Path.of(settings.clientCaFile());
        Duration checkEvery = settings.reloadCheck();
        try {
            current.set(build());
            loadedStamp = stamp();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("TLS certificate, key or client CA cannot be used (TLS_CERT_FILE="
                    + certFile + ", TLS_KEY_FILE=" + keyFile + (clientCaFile == null ? ""
                    : ", TLS_CLIENT_CA_FILE=" + clientCaFile) + "): " + e.getMessage(), e);
        }
        if (clientCaFile != null) {
            LOG.info("TLS client certificates: {} (TLS_CLIENT_AUTH), chaining to {}; a device presenting one logs in"
                    + " only as the IMEI that is its subject's CN", clientAuth.label(), clientCaFile);
        }
        this.job = jobs.start("tls-reload", checkEvery, checkEvery, this::reloadIfChanged);
    }

    @Override
    public SslContext get() {
        return current.get();
    }

    private void reloadIfChanged() {
        try {
            String stamp = stamp();
            if (stamp.equals(loadedStamp)) {
                return;
            }
            current.set(build());
            loadedStamp = stamp;
            LOG.info("TLS certificate{} reloaded from {}: new connections use it, existing ones keep theirs",
                    clientCaFile == null ? "" : " and client CA", certFile);
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            LOG.warn("TLS certificate change could not be loaded, keeping the previous one: {}", e.getMessage());
        }
    }

    /** Content-based, so an in-place rewrite with the same modification time is seen too. */
    private String stamp() throws IOException {
        return java.util.Arrays.hashCode(Files.readAllBytes(certFile)) + ":"
                + java.util.Arrays.hashCode(Files.readAllBytes(keyFile)) + ":"
                + (clientCaFile == null ? 0 : java.util.Arrays.hashCode(Files.readAllBytes(clientCaFile)));
    }

    private SslContext build() throws IOException, GeneralSecurityException {
        java.security.PrivateKey key = PemFiles.privateKey(keyFile);
        java.security.cert.X509Certificate[] chain = PemFiles.certificates(certFile);
        matching(key, chain[0]);
        SslContextBuilder builder = SslContextBuilder.forServer(key, chain)
                .sslProvider(SslProvider.JDK)
                .protocols(TlsPolicy.PROTOCOLS)
                .ciphers(TlsPolicy.cipherSuites(), SupportedCipherSuiteFilter.INSTANCE);
        if (clientCaFile != null) {
            builder.trustManager(PemFiles.certificates(clientCaFile))
                    .clientAuth(clientAuth == TlsClientAuth.REQUIRE ? ClientAuth.REQUIRE : ClientAuth.OPTIONAL);
        }
        return builder.build();
    }

    /**
     * A certificate and a key from different rotations (files replaced one after the other) would
     * load fine and fail every handshake: sign and verify once to be sure they belong together.
     */
    private static void matching(java.security.PrivateKey key, java.security.cert.X509Certificate leaf)
            throws GeneralSecurityException {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519" -> "Ed25519";
            default -> null;
        };
        if (algorithm == null) {
            return;
        }
        byte[] probe = "teltonika-tls-pair-check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.security.Signature signer = java.security.Signature.getInstance(algorithm);
        signer.initSign(key);
        signer.update(probe);
        byte[] signature = signer.sign();
        java.security.Signature verifier = java.security.Signature.getInstance(algorithm);
        verifier.initVerify(leaf.getPublicKey());
        verifier.update(probe);
        if (!verifier.verify(signature)) {
            throw new GeneralSecurityException("the private key does not belong to the certificate (" + leaf
                    .getSubjectX500Principal() + "); a rotation may be half done");
        }
    }

    @Override
    public void close() {
        job.stop();
    }
}
