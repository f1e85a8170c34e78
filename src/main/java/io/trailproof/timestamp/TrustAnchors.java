package io.trailproof.timestamp;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.function.Supplier;
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

    /**
     * {@link #jdkPlus}, with the PEM files read now (a missing or empty one is refused here, at the
     * start) and the JDK trust store read by the first {@code get()}: loading it costs about a tenth of
     * a server's start, and only verifying a timestamp needs it. The supplier answers the same list
     * every time; it throws {@link UncheckedIOException} (holding {@link #jdk}'s exception) while the
     * JDK trust store cannot be read.
     */
    public static Supplier<List<X509Certificate>> jdkPlusOnFirstUse(List<Path> pemFiles) throws IOException {
        List<X509Certificate> configured = new ArrayList<>();
        for (Path p : pemFiles) {
            configured.addAll(pem(p));
        }
        return new Supplier<>() {
            private List<X509Certificate> all;

            @Override
            public synchronized List<X509Certificate> get() {
                if (all == null) {
                    List<X509Certificate> out;
                    try {
                        out = new ArrayList<>(jdk());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    out.addAll(configured);
                    all = List.copyOf(out);
                }
                return all;
            }
        };
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
