package io.trailproof.timestamp;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * Loads the roots a TSA certificate chain may end in (src/site/evidence-format.md, src/site/timestamps.md#verification): the JDK's default trust
 * store plus PEM files. I/O lives here so that the verifier in the core stays pure.
 */
public final class TrustAnchors {

    private TrustAnchors() {
    }

    /** The JDK trust store followed by every certificate in the PEM files. */
    public static List<X509Certificate> jdkPlus(List<Path> pemFiles) throws IOException {
        List<X509Certificate> out = new ArrayList<>(jdk());
        for (Path p : pemFiles) {
            out.addAll(pem(p));
        }
        return List.copyOf(out);
    }

    /** The certificates the JDK's default trust manager accepts as issuers ({@code cacerts} unless overridden). */
    public static List<X509Certificate> jdk() throws IOException {
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init((KeyStore) null);
            for (TrustManager tm : tmf.getTrustManagers()) {
                if (tm instanceof X509TrustManager x) {
                    return Arrays.asList(x.getAcceptedIssuers());
                }
            }
            return List.of();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the JDK trust store: " + e.getMessage(), e);
        }
    }

    /**
     * Every certificate in a PEM (or DER) file.
     *
     * @throws IOException naming the file when it is missing, unreadable or holds no certificate
     */
    public static List<X509Certificate> pem(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IOException("trust anchor file " + file + " does not exist");
        }
        try (InputStream in = Files.newInputStream(file)) {
            List<X509Certificate> out = new ArrayList<>();
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                out.add((X509Certificate) c);
            }
            if (out.isEmpty()) {
                throw new IOException("trust anchor file " + file + " holds no certificate");
            }
            return out;
        } catch (CertificateException e) {
            throw new IOException("trust anchor file " + file + " is not a PEM certificate file: " + e.getMessage(), e);
        }
    }
}
