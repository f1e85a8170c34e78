package io.trailproof.testing;

import java.time.Duration;
import com.sun.net.httpserver.HttpServer;
import org.bouncycastle.asn1.ASN1Boolean;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.ASN1GeneralizedTime;
import org.bouncycastle.asn1.ASN1Integer;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DERSet;
import org.bouncycastle.asn1.cms.Attribute;
import org.bouncycastle.asn1.cms.AttributeTable;
import org.bouncycastle.asn1.cmp.PKIFailureInfo;
import org.bouncycastle.asn1.cmp.PKIStatus;
import org.bouncycastle.asn1.cmp.PKIStatusInfo;
import org.bouncycastle.asn1.ess.ESSCertIDv2;
import org.bouncycastle.asn1.ess.SigningCertificateV2;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.tsp.MessageImprint;
import org.bouncycastle.asn1.tsp.TSTInfo;
import org.bouncycastle.asn1.tsp.TimeStampResp;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.cert.jcajce.JcaCertStore;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.CMSSignedDataGenerator;
import org.bouncycastle.cms.DefaultSignedAttributeTableGenerator;
import org.bouncycastle.cms.SignerInfoGenerator;
import org.bouncycastle.cms.jcajce.JcaSignerInfoGeneratorBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;
import org.bouncycastle.tsp.TSPAlgorithms;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampRequestGenerator;
import org.bouncycastle.tsp.TimeStampResponseGenerator;
import org.bouncycastle.tsp.TimeStampTokenGenerator;

import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A real RFC 3161 TSA for tests: BouncyCastle's {@link TimeStampResponseGenerator} behind the JDK's
 * HTTP server on a free loopback port, with its own test CA. {@link #mode} makes it misbehave in the
 * ways a TSA can; {@link #respond} gives the same answers without HTTP.
 */
public final class TestTsa implements AutoCloseable {

    /** The policy OID the test TSA stamps under. */
    public static final String POLICY = "1.3.6.1.4.1.99999.1";

    public enum Mode {
        OK, GARBAGE, REJECT, WRONG_NONCE, WRONG_IMPRINT, NO_EKU, UNTRUSTED, EXPIRED_SIGNER, EXPIRED_INTERMEDIATE,
        HANG, HTTP_500,
        /** A valid answer, sent in 20 pieces 300 ms apart (6 s for the body alone). */
        DRIP
    }

    private final TestPki pki;
    private final TestPki strangerPki;
    private final TestPki.Issued signer;
    private final TestPki.Issued noEku;
    private final TestPki.Issued stranger;
    private final TestPki.Issued expiredSigner;
    private final TestPki.Issued underExpiredIntermediate;
    private final HttpServer http;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "test-tsa");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong serial = new AtomicLong(1);
    private final AtomicInteger requests = new AtomicInteger();
    private volatile Mode mode = Mode.OK;
    private volatile Instant genTime;

    private TestTsa(boolean listen) throws Exception {
        pki = TestPki.create("Trailproof Test Root CA");
        strangerPki = TestPki.create("Unknown Root CA");
        Instant now = Instant.now();
        signer = pki.tsa("Trailproof Test TSA");
        noEku = pki.tsa("TSA Without Timestamping Usage", null, false, now.minus(1, ChronoUnit.DAYS),
                now.plus(365, ChronoUnit.DAYS));
        stranger = strangerPki.tsa("Stranger TSA");
        expiredSigner = pki.tsa("Expired TSA", null, true, now.minus(400, ChronoUnit.DAYS), now.minus(30, ChronoUnit.DAYS));
        TestPki.Issued oldIntermediate = pki.intermediate("Expired Intermediate CA", now.minus(400, ChronoUnit.DAYS),
                now.minus(30, ChronoUnit.DAYS));
        underExpiredIntermediate = pki.tsa("TSA Under Expired CA", oldIntermediate, true, now.minus(60, ChronoUnit.DAYS),
                now.plus(365, ChronoUnit.DAYS));
        if (listen) {
            http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            http.setExecutor(executor);
            http.createContext("/", exchange -> {
                try (exchange) {
                    requests.incrementAndGet();
                    byte[] body;
                    try (InputStream in = exchange.getRequestBody()) {
                        body = in.readAllBytes();
                    }
                    Mode m = mode;
                    if (m == Mode.HANG) {
                        Await.pace(Duration.ofSeconds(5), "a TSA that hangs");
                    }
                    if (m == Mode.HTTP_500) {
                        exchange.sendResponseHeaders(500, -1);
                        return;
                    }
                    byte[] answer = respond(body);
                    exchange.getResponseHeaders().add("Content-Type", "application/timestamp-reply");
                    exchange.sendResponseHeaders(200, answer.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        if (m == Mode.DRIP) {
                            int piece = (answer.length + 19) / 20;
                            for (int at = 0; at < answer.length; at += piece) {
                                out.write(answer, at, Math.min(piece, answer.length - at));
                                out.flush();
                                Await.pace(Duration.ofMillis(300), "a TSA that drips its answer");
                            }
                        } else {
                            out.write(answer);
                        }
                    }
                } catch (Exception e) {
                    exchange.sendResponseHeaders(500, -1);
                }
            });
            http.start();
        } else {
            http = null;
        }
    }

    /** A TSA listening on a free loopback port. */
    public static TestTsa start() throws Exception {
        return new TestTsa(true);
    }

    /** A TSA without HTTP, for unit tests of the pure code ({@link #respond}). */
    public static TestTsa offline() throws Exception {
        return new TestTsa(false);
    }

    public String url() {
        return "http://127.0.0.1:" + http.getAddress().getPort() + "/tsa";
    }

    /** A URL on which nothing listens. */
    public static String deadUrl() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return "http://127.0.0.1:" + s.getLocalPort() + "/tsa";
        }
    }

    public TestTsa mode(Mode m) {
        mode = m;
        return this;
    }

    /** Sets the genTime the TSA puts into tokens (null: now). */
    public TestTsa genTime(Instant t) {
        genTime = t;
        return this;
    }

    public int requests() {
        return requests.get();
    }

    public X509Certificate root() {
        return pki.root();
    }

    public X509Certificate signerCertificate() {
        return signer.cert();
    }

    public Path writeRootPem(Path file) throws Exception {
        return pki.writeRootPem(file);
    }

    /** The DER answer to a DER request, according to the current mode. */
    public byte[] respond(byte[] requestDer) throws Exception {
        TimeStampRequest request = new TimeStampRequest(requestDer);
        Date when = Date.from(genTime == null ? Instant.now() : genTime);
        BigInteger sn = BigInteger.valueOf(serial.getAndIncrement());
        return switch (mode) {
            case GARBAGE -> "<html>this is not a time-stamp response</html>".getBytes(StandardCharsets.US_ASCII);
            case REJECT -> new TimeStampResponseGenerator(generator(signer), TSPAlgorithms.ALLOWED)
                    .generateFailResponse(PKIStatus.REJECTION, PKIFailureInfo.unacceptedPolicy, "policy not supported")
                    .getEncoded();
            case WRONG_NONCE -> granted(signer, reissue(request, request.getMessageImprintDigest(),
                    request.getNonce().add(BigInteger.ONE)), sn, when);
            case WRONG_IMPRINT -> {
                byte[] other = request.getMessageImprintDigest().clone();
                other[0] ^= 1;
                yield granted(signer, reissue(request, other, request.getNonce()), sn, when);
            }
            case NO_EKU -> withoutGeneratorChecks(noEku, request, sn, when);
            case UNTRUSTED -> granted(stranger, request, sn, when);
            case EXPIRED_SIGNER -> granted(expiredSigner, request, sn, when);
            case EXPIRED_INTERMEDIATE -> granted(underExpiredIntermediate, request, sn, when);
            default -> granted(signer, request, sn, when);
        };
    }

    private static TimeStampRequest reissue(TimeStampRequest original, byte[] imprint, BigInteger nonce) {
        TimeStampRequestGenerator g = new TimeStampRequestGenerator();
        g.setCertReq(original.getCertReq());
        return g.generate(original.getMessageImprintAlgOID(), imprint, nonce);
    }

    private static byte[] granted(TestPki.Issued who, TimeStampRequest request, BigInteger sn, Date when) throws Exception {
        return new TimeStampResponseGenerator(generator(who), TSPAlgorithms.ALLOWED).generate(request, sn, when).getEncoded();
    }

    private static TimeStampTokenGenerator generator(TestPki.Issued who) throws Exception {
        SignerInfoGenerator sig = new JcaSignerInfoGeneratorBuilder(new JcaDigestCalculatorProviderBuilder().build())
                .build(new JcaContentSignerBuilder("SHA256withECDSA").build(who.key()), who.cert());
        TimeStampTokenGenerator g = new TimeStampTokenGenerator(sig,
                new JcaDigestCalculatorProviderBuilder().build().get(new AlgorithmIdentifier(NISTObjectIdentifiers.id_sha256)),
                new ASN1ObjectIdentifier(POLICY));
        List<X509Certificate> certs = new ArrayList<>();
        certs.add(who.cert());
        certs.addAll(who.above());
        g.addCertificates(new JcaCertStore(certs));
        return g;
    }

    /**
     * A granted answer signed by a certificate that BouncyCastle's generator refuses (no timeStamping
     * usage): the token built by hand, as a careless or hostile TSA would.
     */
    private static byte[] withoutGeneratorChecks(TestPki.Issued who, TimeStampRequest request, BigInteger sn, Date when)
            throws Exception {
        TSTInfo info = new TSTInfo(new ASN1ObjectIdentifier(POLICY),
                new MessageImprint(new AlgorithmIdentifier(request.getMessageImprintAlgOID()), request.getMessageImprintDigest()),
                new ASN1Integer(sn), new ASN1GeneralizedTime(when), null, ASN1Boolean.FALSE,
                new ASN1Integer(request.getNonce()), null, null);
        byte[] certHash = MessageDigest.getInstance("SHA-256").digest(who.cert().getEncoded());
        AttributeTable signed = new AttributeTable(new Attribute(PKCSObjectIdentifiers.id_aa_signingCertificateV2,
                new DERSet(new SigningCertificateV2(new ESSCertIDv2(certHash)))));
        SignerInfoGenerator sig = new JcaSignerInfoGeneratorBuilder(new JcaDigestCalculatorProviderBuilder().build())
                .setSignedAttributeGenerator(new DefaultSignedAttributeTableGenerator(signed))
                .build(new JcaContentSignerBuilder("SHA256withECDSA").build(who.key()), who.cert());
        CMSSignedDataGenerator g = new CMSSignedDataGenerator();
        g.addSignerInfoGenerator(sig);
        g.addCertificates(new JcaCertStore(List.of(who.cert())));
        CMSSignedData data = g.generate(new CMSProcessableByteArray(PKCSObjectIdentifiers.id_ct_TSTInfo,
                info.getEncoded(ASN1Encoding.DER)), true);
        return new TimeStampResp(new PKIStatusInfo(PKIStatus.granted), data.toASN1Structure()).getEncoded();
    }

    @Override
    public void close() {
        if (http != null) {
            http.stop(0);
        }
        executor.shutdownNow();
    }
}
