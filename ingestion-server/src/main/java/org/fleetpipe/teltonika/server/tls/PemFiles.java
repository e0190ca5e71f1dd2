package org.fleetpipe.teltonika.server.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;

/**
 * Reads a PEM certificate chain and a PEM private key, PKCS#8 ({@code BEGIN PRIVATE KEY}) or
 * PKCS#1 RSA ({@code BEGIN RSA PRIVATE KEY}, which OpenSSL still writes by default in places),
 * without any library beyond the JDK.
 */
final class PemFiles {

    private PemFiles() {
    }

    static X509Certificate[] certificates(Path file) throws IOException, GeneralSecurityException {
        byte[] pem = Files.readAllBytes(file);
        List<X509Certificate> chain = CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(pem)).stream().map(c -> (X509Certificate) c).toList();
        if (chain.isEmpty()) {
            throw new GeneralSecurityException("no certificate in " + file);
        }
        return chain.toArray(X509Certificate[]::new);
    }

    static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        String pem = Files.readString(file, StandardCharsets.US_ASCII);
        if (pem.contains("BEGIN PRIVATE KEY")) {
            return pkcs8(body(pem, "PRIVATE KEY"));
        }
        if (pem.contains("BEGIN RSA PRIVATE KEY")) {
            return pkcs8(pkcs1ToPkcs8(body(pem, "RSA PRIVATE KEY")));
        }
        throw new GeneralSecurityException(file + " holds no PKCS#8 (BEGIN PRIVATE KEY) or PKCS#1 RSA "
                + "(BEGIN RSA PRIVATE KEY) key; encrypted keys are not supported");
    }

    private static byte[] body(String pem, String type) {
        int start = pem.indexOf("-----BEGIN " + type + "-----") + ("-----BEGIN " + type + "-----").length();
        int end = pem.indexOf("-----END " + type + "-----", start);
        return Base64.getMimeDecoder().decode(pem.substring(start, end));
    }

    private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        GeneralSecurityException last = null;
        for (String algorithm : new String[] {"RSA", "EC", "Ed25519", "RSASSA-PSS"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw last;
    }

    /**
     * Wraps a PKCS#1 RSAPrivateKey in a PKCS#8 PrivateKeyInfo: SEQUENCE { INTEGER 0,
     * SEQUENCE { OID rsaEncryption, NULL }, OCTET STRING { pkcs1 } }.
     */
    static byte[] pkcs1ToPkcs8(byte[] pkcs1) {
        byte[] algorithm = {0x30, 0x0D, 0x06, 0x09, 0x2A, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xF7, 0x0D, 0x01, 0x01,
                0x01, 0x05, 0x00};
        byte[] version = {0x02, 0x01, 0x00};
        byte[] octets = tlv(0x04, pkcs1);
        byte[] inner = new byte[version.length + algorithm.length + octets.length];
        System.arraycopy(version, 0, inner, 0, version.length);
        System.arraycopy(algorithm, 0, inner, version.length, algorithm.length);
        System.arraycopy(octets, 0, inner, version.length + algorithm.length, octets.length);
        return tlv(0x30, inner);
    }

    private static byte[] tlv(int tag, byte[] value) {
        int n = value.length;
        byte[] length;
        if (n < 0x80) {
            length = new byte[] {(byte) n};
        } else if (n < 0x100) {
            length = new byte[] {(byte) 0x81, (byte) n};
        } else if (n < 0x10000) {
            length = new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n};
        } else {
            length = new byte[] {(byte) 0x83, (byte) (n >> 16), (byte) (n >> 8), (byte) n};
        }
        byte[] out = new byte[1 + length.length + n];
        out[0] = (byte) tag;
        System.arraycopy(length, 0, out, 1, length.length);
        System.arraycopy(value, 0, out, 1 + length.length, n);
        return out;
    }
}
