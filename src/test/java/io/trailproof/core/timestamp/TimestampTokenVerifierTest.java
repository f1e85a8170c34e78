package io.trailproof.core.timestamp;

import io.trailproof.core.merkle.InMemorySubtreeHashes;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.testing.TestTsa;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The offline token checks: signature, message_imprint, certificate_chain at genTime, consistency. */
class TimestampTokenVerifierTest {

    private static TestTsa tsa;
    private static List<X509Certificate> anchors;
    private final Random random = new Random(42);

    @BeforeAll
    static void startTsa() throws Exception {
        tsa = TestTsa.offline();
        anchors = List.of(tsa.root());
    }

    @AfterAll
    static void stopTsa() {
        tsa.close();
    }

    private record Stamp(byte[] root, byte[] token, List<byte[]> certs) {
    }

    private Stamp stamp(TestTsa.Mode mode) throws Exception {
        byte[] root = new byte[32];
        byte[] nonce = new byte[8];
        random.nextBytes(root);
        random.nextBytes(nonce);
        TimeStampRequest req = Rfc3161.request(root, nonce);
        byte[] answer = tsa.mode(mode).respond(req.getEncoded());
        var token = new TimeStampResponse(answer).getTimeStampToken();
        List<byte[]> certs = token.getCertificates().getMatches(null).stream().map(h -> {
            try {
                return h.getEncoded();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }).toList();
        return new Stamp(root, token.getEncoded(), certs);
    }

    @Test
    void aGoodTokenPassesAllThreeChecks() throws Exception {
        Stamp s = stamp(TestTsa.Mode.OK);
        TimestampVerification v = TimestampTokenVerifier.verifyToken(s.token, s.certs, s.root, anchors);
        assertThat(v.failures()).isEmpty();
        assertThat(v.valid(TimestampCheck.SIGNATURE, TimestampCheck.MESSAGE_IMPRINT, TimestampCheck.CERTIFICATE_CHAIN)).isTrue();
        assertThat(v.facts().orElseThrow().existedNoLaterThan()).startsWith("existed no later than ")
                .contains("(TSA CN=Trailproof Test TSA)");
    }

    @Test
    void anotherRootFailsTheImprintWithEvidence() throws Exception {
        Stamp s = stamp(TestTsa.Mode.OK);
        byte[] other = s.root.clone();
        other[31] ^= 1;
        TimestampVerification v = TimestampTokenVerifier.verifyToken(s.token, s.certs, other, anchors);
        assertThat(v.passed(TimestampCheck.MESSAGE_IMPRINT)).isFalse();
        assertThat(v.passed(TimestampCheck.SIGNATURE)).isTrue();
        TimestampFailure f = v.firstFailure().orElseThrow();
        assertThat(f.check()).isEqualTo(TimestampCheck.MESSAGE_IMPRINT);
        assertThat(f.expected()).isEqualTo(HexFormat.of().formatHex(other));
        assertThat(f.actual()).isEqualTo(HexFormat.of().formatHex(s.root));
    }

    @Test
    void aChainToAnUnknownRootFailsOnlyTheChain() throws Exception {
        Stamp s = stamp(TestTsa.Mode.UNTRUSTED);
        TimestampVerification v = TimestampTokenVerifier.verifyToken(s.token, s.certs, s.root, anchors);
        assertThat(v.passed(TimestampCheck.SIGNATURE)).isTrue();
        assertThat(v.passed(TimestampCheck.MESSAGE_IMPRINT)).isTrue();
        assertThat(v.passed(TimestampCheck.CERTIFICATE_CHAIN)).isFalse();
        assertThat(v.firstFailure().orElseThrow().message()).startsWith("certificate_chain: ")
                .contains("Unknown Root CA").contains("not a trust anchor");
    }

    @Test
    void noAnchorsMeansNoTrust() throws Exception {
        Stamp s = stamp(TestTsa.Mode.OK);
        TimestampVerification v = TimestampTokenVerifier.verifyToken(s.token, s.certs, s.root, List.of());
        assertThat(v.passed(TimestampCheck.CERTIFICATE_CHAIN)).isFalse();
    }

    @Test
    void anIntermediateExpiredAtGenTimeFailsTheChain() throws Exception {
        Stamp s = stamp(TestTsa.Mode.EXPIRED_INTERMEDIATE);
        TimestampVerification v = TimestampTokenVerifier.verifyToken(s.token, s.certs, s.root, anchors);
        assertThat(v.passed(TimestampCheck.SIGNATURE)).isTrue();
        assertThat(v.passed(TimestampCheck.CERTIFICATE_CHAIN)).isFalse();
        assertThat(v.firstFailure().orElseThrow().reason()).contains("Expired Intermediate CA")
                .contains("was not valid at the token's time");
    }

    @Test
    void aSignerExpiredAtGenTimeFailsTheChainButNotTheSignature() throws Exception {
        Stamp s = stamp(TestTsa.Mode.EXPIRED_SIGNER);
        TimestampVerification v = TimestampTokenVerifier.verifyToken(s.token, s.certs, s.root, anchors);
        assertThat(v.passed(TimestampCheck.SIGNATURE)).isTrue();
        assertThat(v.passed(TimestampCheck.CERTIFICATE_CHAIN)).isFalse();
        assertThat(v.firstFailure().orElseThrow().reason()).contains("Expired TSA");
    }

    @Test
    void aChainIsValidatedAtGenTimeNotToday() throws Exception {
        // A token made while the intermediate was still valid stays valid after it expired.
        tsa.genTime(Instant.now().minus(Duration.ofDays(45)));
        try {
            Stamp s = stamp(TestTsa.Mode.EXPIRED_INTERMEDIATE);
            TimestampVerification v = TimestampTokenVerifier.verifyToken(s.token, s.certs, s.root, anchors);
            assertThat(v.failures()).isEmpty();
        } finally {
            tsa.genTime(null);
        }
    }

    @Test
    void aSignerWithoutTheTimeStampingUsageFailsTheSignatureCheck() throws Exception {
        Stamp s = stamp(TestTsa.Mode.NO_EKU);
        TimestampVerification v = TimestampTokenVerifier.verifyToken(s.token, s.certs, s.root, anchors);
        assertThat(v.passed(TimestampCheck.SIGNATURE)).isFalse();
        assertThat(v.firstFailure().orElseThrow().reason()).contains("not a time-stamping certificate");
    }

    @Test
    void anyFlippedByteOfTheTokenFailsSomeCheck() throws Exception {
        Stamp s = stamp(TestTsa.Mode.OK);
        Random r = new Random(99);
        for (int i = 0; i < 200; i++) {
            byte[] t = s.token.clone();
            int at = r.nextInt(t.length);
            t[at] ^= (byte) (1 << r.nextInt(8));
            TimestampVerification v = TimestampTokenVerifier.verifyToken(t, s.certs, s.root, anchors);
            boolean sameFacts = v.facts().isPresent()
                    && v.valid(TimestampCheck.SIGNATURE, TimestampCheck.MESSAGE_IMPRINT, TimestampCheck.CERTIFICATE_CHAIN);
            if (sameFacts) {
                // Only bytes outside what is signed (e.g. the unsigned certificate set) may change without notice;
                // then the signed content must still be exactly the original.
                var original = Rfc3161.parseToken(s.token).getTimeStampInfo().getEncoded();
                assertThat(Rfc3161.parseToken(t).getTimeStampInfo().getEncoded()).as("byte %d", at).isEqualTo(original);
            }
        }
    }

    @Test
    void recordRoundTripsAndVerifiesWithConsistencyToALaterTree() throws Exception {
        InMemorySubtreeHashes tree = new InMemorySubtreeHashes();
        for (int i = 0; i < 13; i++) {
            tree.append(Rfc9162.leafHash(new byte[] {(byte) i}));
        }
        byte[] root = tree.root(9);
        TimeStampRequest req = Rfc3161.request(root, new byte[8]);
        Rfc3161.Accepted a = Rfc3161.accept(req, tsa.mode(TestTsa.Mode.OK).respond(req.getEncoded()));
        Base64.Encoder b64 = Base64.getEncoder();
        TimestampRecord record = new TimestampRecord("id-1", HexFormat.of().formatHex(root), 9, "tsa.test",
                "http://tsa.test/", a.facts().genTime().toString(), "2026-01-01T00:00:00Z", a.facts().serialNumber(),
                a.facts().policy(), "SHA-256", a.facts().nonce(), b64.encodeToString(a.tokenDer()),
                a.certificates().stream().map(b64::encodeToString).toList());
        TimestampRecord back = TimestampRecord.fromJson(record.toJson());
        assertThat(back).isEqualTo(record);

        TimestampVerification ok = TimestampTokenVerifier.verifyRecord(back, anchors, 13, tree.root(13),
                tree.consistencyProof(9, 13));
        assertThat(ok.valid()).isTrue();

        byte[] forged = tree.root(13).clone();
        forged[0] ^= 1;
        TimestampVerification bad = TimestampTokenVerifier.verifyRecord(back, anchors, 13, forged,
                tree.consistencyProof(9, 13));
        assertThat(bad.valid()).isFalse();
        assertThat(bad.firstFailure().orElseThrow().check()).isEqualTo(TimestampCheck.CONSISTENCY);
    }
}
