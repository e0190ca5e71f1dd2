package org.fleetpipe.teltonika.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;

class TlsPolicyTest {

    @Test
    void forwardSecret_takesEphemeralKeyExchangesAndTls13_only() {
        assertThat(TlsPolicy.forwardSecret("TLS_AES_128_GCM_SHA256")).isTrue();
        assertThat(TlsPolicy.forwardSecret("TLS_CHACHA20_POLY1305_SHA256")).isTrue();
        assertThat(TlsPolicy.forwardSecret("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384")).isTrue();
        assertThat(TlsPolicy.forwardSecret("TLS_DHE_RSA_WITH_AES_128_GCM_SHA256")).isTrue();
        assertThat(TlsPolicy.forwardSecret("TLS_RSA_WITH_AES_128_GCM_SHA256")).isFalse();
        assertThat(TlsPolicy.forwardSecret("TLS_ECDH_ECDSA_WITH_AES_128_GCM_SHA256")).isFalse();
        assertThat(TlsPolicy.forwardSecret("TLS_ECDHE_ECDSA_WITH_NULL_SHA")).isFalse();
        assertThat(TlsPolicy.forwardSecret("TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA")).isFalse();
        assertThat(TlsPolicy.forwardSecret("TLS_DH_anon_WITH_AES_128_GCM_SHA256")).isFalse();
        assertThat(TlsPolicy.forwardSecret("TLS_EMPTY_RENEGOTIATION_INFO_SCSV")).isFalse();
    }

    @Test
    void cipherSuites_ofThisJdk_areAllForwardSecret_andIncludeTls13AndEcdhe() {
        assertThat(TlsPolicy.cipherSuites()).isNotEmpty().allMatch(TlsPolicy::forwardSecret)
                .contains("TLS_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
    }

    @Test
    void commonName_isTheSubjectsSingleCn_elseNoSingleCn() throws Exception {
        assertThat(ClientCertificates.commonName(certificate("O=Fleet,CN=352093081452251,C=LT")))
                .isEqualTo("352093081452251");
        assertThat(ClientCertificates.commonName(certificate("O=Fleet")))
                .isEqualTo(ClientCertificates.NO_SINGLE_CN);
        assertThat(ClientCertificates.commonName(certificate("CN=352093081452251,CN=490154203237518")))
                .isEqualTo(ClientCertificates.NO_SINGLE_CN);
        assertThat(ClientCertificates.shown("35209308\n1452251 x")).isEqualTo("35209308?1452251?x");
    }

    private static X509Certificate certificate(String subject) throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        KeyPair keys = generator.generateKeyPair();
        X500Name name = new X500Name(subject);
        long now = System.currentTimeMillis();
        return new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(name, BigInteger.ONE,
                new Date(now - 60_000), new Date(now + 60_000), name, keys.getPublic())
                .build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
    }
}
