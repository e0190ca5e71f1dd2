package org.fleetpipe.teltonika.server.tls;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.fleetpipe.teltonika.registry.BackgroundThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device TLS context, rebuilt when the certificate or key file changes (Kubernetes rotates
 * secret files in place). New connections use the newest context; existing sessions keep theirs.
 * A file that does not load keeps the previous context, with a warning.
 */
public final class ReloadingSslContext implements Supplier<SslContext>, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReloadingSslContext.class);

    private final Path certFile;
    private final Path keyFile;
    private final AtomicReference<SslContext> current = new AtomicReference<>();
    private final ScheduledExecutorService thread;
    private volatile String loadedStamp;

    /** Loads at once; a bad certificate or key stops the start with the reason. */
    public ReloadingSslContext(Path certFile, Path keyFile, Duration checkEvery) {
        this.certFile = certFile;
        this.keyFile = keyFile;
        try {
            current.set(build());
            loadedStamp = stamp();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("TLS certificate or key cannot be used (TLS_CERT_FILE=" + certFile
                    + ", TLS_KEY_FILE=" + keyFile + "): " + e.getMessage(), e);
        }
        this.thread = BackgroundThreads.single("tls-reload");
        thread.scheduleWithFixedDelay(this::reloadIfChanged, checkEvery.toMillis(), checkEvery.toMillis(),
                TimeUnit.MILLISECONDS);
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
            LOG.info("TLS certificate reloaded from {}: new connections use it, existing ones keep theirs", certFile);
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            LOG.warn("TLS certificate change could not be loaded, keeping the previous one: {}", e.getMessage());
        }
    }

    /** Content-based, so an in-place rewrite with the same modification time is seen too. */
    private String stamp() throws IOException {
        return java.util.Arrays.hashCode(Files.readAllBytes(certFile)) + ":"
                + java.util.Arrays.hashCode(Files.readAllBytes(keyFile));
    }

    private SslContext build() throws IOException, GeneralSecurityException {
        java.security.PrivateKey key = PemFiles.privateKey(keyFile);
        java.security.cert.X509Certificate[] chain = PemFiles.certificates(certFile);
        matching(key, chain[0]);
        return SslContextBuilder.forServer(key, chain)
                .sslProvider(SslProvider.JDK)
                .protocols("TLSv1.3", "TLSv1.2")
                .build();
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
        thread.shutdownNow();
    }
}
