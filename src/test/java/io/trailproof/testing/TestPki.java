package io.trailproof.testing;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** A throwaway certificate authority for tests: a root, optional intermediates, and TSA certificates. */
public final class TestPki {

    private static final AtomicLong SERIAL = new AtomicLong(1000);

    /** A key and its certificate, with the certificates above it (not including the root). */
    public record Issued(PrivateKey key, X509Certificate cert, List<X509Certificate> above) {
        public KeyPair keyPair() {
            return new KeyPair(cert.getPublicKey(), key);
        }
    }

    private final Issued root;

    private TestPki(Issued root) {
        this.root = root;
    }

    public static TestPki create(String name) throws Exception {
        KeyPair kp = keyPair();
        Instant now = Instant.now();
        X509Certificate cert = sign(new X500Name("CN=" + name), kp, new X500Name("CN=" + name), kp.getPrivate(),
                now.minus(3650, ChronoUnit.DAYS), now.plus(3650, ChronoUnit.DAYS), true, null);
        return new TestPki(new Issued(kp.getPrivate(), cert, List.of()));
    }

    public X509Certificate root() {
        return root.cert();
    }

    /** An intermediate CA under the root, valid in the given window. */
    public Issued intermediate(String name, Instant notBefore, Instant notAfter) throws Exception {
        KeyPair kp = keyPair();
        X509Certificate cert = sign(new X500Name("CN=" + name), kp, subject(root.cert()), root.key(), notBefore, notAfter,
                true, null);
        return new Issued(kp.getPrivate(), cert, List.of());
    }

    /** A TSA certificate issued by {@code issuer} (null: the root) with the critical timeStamping EKU or none. */
    public Issued tsa(String name, Issued issuer, boolean timeStampingEku, Instant notBefore, Instant notAfter)
            throws Exception {
        Issued by = issuer == null ? root : issuer;
        KeyPair kp = keyPair();
        X509Certificate cert = sign(new X500Name("CN=" + name), kp, subject(by.cert()), by.key(), notBefore, notAfter,
                false, timeStampingEku ? new ExtendedKeyUsage(KeyPurposeId.id_kp_timeStamping) : null);
        return new Issued(kp.getPrivate(), cert, issuer == null ? List.of() : List.of(issuer.cert()));
    }

    /** A TSA certificate valid for a year either side of now, with the critical timeStamping EKU. */
    public Issued tsa(String name) throws Exception {
        Instant now = Instant.now();
        return tsa(name, null, true, now.minus(365, ChronoUnit.DAYS), now.plus(365, ChronoUnit.DAYS));
    }

    /** Writes the root certificate as PEM. */
    public Path writeRootPem(Path file) throws Exception {
        String pem = "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(root.cert().getEncoded())
                + "\n-----END CERTIFICATE-----\n";
        Files.writeString(file, pem);
        return file;
    }

    private static X500Name subject(X509Certificate c) {
        return X500Name.getInstance(c.getSubjectX500Principal().getEncoded());
    }

    private static KeyPair keyPair() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static X509Certificate sign(X500Name subject, KeyPair subjectKeys, X500Name issuer, PrivateKey issuerKey,
                                        Instant notBefore, Instant notAfter, boolean ca, ExtendedKeyUsage eku)
            throws Exception {
        JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(notBefore), Date.from(notAfter), subject, subjectKeys.getPublic());
        if (ca) {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        } else {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            if (eku != null) {
                b.addExtension(Extension.extendedKeyUsage, true, eku);
            }
        }
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
    }
}
