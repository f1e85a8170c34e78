package io.trailproof.core.timestamp;

import io.trailproof.testing.TestTsa;
import org.bouncycastle.tsp.TimeStampRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.HexFormat;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The acceptance rules of src/site/timestamps.md#request against a real BouncyCastle TSA (no HTTP). */
class Rfc3161Test {

    private static TestTsa tsa;
    private final Random random = new Random(7);

    @BeforeAll
    static void startTsa() throws Exception {
        tsa = TestTsa.offline();
    }

    @AfterAll
    static void stopTsa() {
        tsa.close();
    }

    private TimeStampRequest request() {
        byte[] root = new byte[32];
        byte[] nonce = new byte[8];
        random.nextBytes(root);
        random.nextBytes(nonce);
        return Rfc3161.request(root, nonce);
    }

    private Rfc3161.Accepted answer(TestTsa.Mode mode, TimeStampRequest request) throws Exception {
        return Rfc3161.accept(request, tsa.mode(mode).respond(request.getEncoded()));
    }

    @Test
    void requestIsSha256OfTheRootWithNonceAndCertReq() {
        byte[] root = new byte[32];
        root[0] = 1;
        TimeStampRequest r = Rfc3161.request(root, new byte[] {(byte) 0xff, 0, 0, 0, 0, 0, 0, 1});
        assertThat(r.getMessageImprintAlgOID()).isEqualTo(Rfc3161.HASH_ALGORITHM);
        assertThat(r.getMessageImprintDigest()).isEqualTo(root);
        assertThat(r.getCertReq()).isTrue();
        assertThat(r.getNonce().toString(16)).isEqualTo("ff00000000000001");
    }

    @Test
    void acceptsAGrantedAnswerAndReadsItsFacts() throws Exception {
        TimeStampRequest request = request();
        Instant when = Instant.parse("2026-01-02T03:04:05Z");
        tsa.genTime(when);
        try {
            Rfc3161.Accepted a = answer(TestTsa.Mode.OK, request);
            assertThat(a.facts().genTime()).isEqualTo(when);
            assertThat(a.facts().policy()).isEqualTo(TestTsa.POLICY);
            assertThat(a.facts().nonce()).isEqualTo(request.getNonce().toString(16));
            assertThat(a.facts().imprint()).isEqualTo(HexFormat.of().formatHex(request.getMessageImprintDigest()));
            assertThat(a.facts().tsaName()).contains("Trailproof Test TSA");
            assertThat(a.certificates()).hasSize(1);
            assertThat(a.certificates().get(0)).isEqualTo(tsa.signerCertificate().getEncoded());
        } finally {
            tsa.genTime(null);
        }
    }

    @Test
    void refusesGarbage() {
        assertThatThrownBy(() -> answer(TestTsa.Mode.GARBAGE, request()))
                .isInstanceOf(TsaAnswerRejected.class).hasMessageContaining("not an RFC 3161");
    }

    @Test
    void refusesARejection() {
        assertThatThrownBy(() -> answer(TestTsa.Mode.REJECT, request()))
                .isInstanceOf(TsaAnswerRejected.class).hasMessageContaining("refused").hasMessageContaining("rejection")
                .hasMessageContaining("policy not supported");
    }

    @Test
    void refusesAWrongNonce() {
        assertThatThrownBy(() -> answer(TestTsa.Mode.WRONG_NONCE, request()))
                .isInstanceOf(TsaAnswerRejected.class).hasMessageContaining("nonce");
    }

    @Test
    void refusesAWrongImprint() {
        assertThatThrownBy(() -> answer(TestTsa.Mode.WRONG_IMPRINT, request()))
                .isInstanceOf(TsaAnswerRejected.class).hasMessageContaining("different message imprint");
    }

    @Test
    void refusesASignerWithoutTheTimeStampingUsage() {
        assertThatThrownBy(() -> answer(TestTsa.Mode.NO_EKU, request()))
                .isInstanceOf(TsaAnswerRejected.class).hasMessageContaining("not a time-stamping certificate");
    }

    @Test
    void refusesASignerExpiredAtGenTime() {
        assertThatThrownBy(() -> answer(TestTsa.Mode.EXPIRED_SIGNER, request()))
                .isInstanceOf(TsaAnswerRejected.class).hasMessageContaining("was not valid at the token's time");
    }

    @Test
    void acceptsAnUntrustedChainBecauseTrustIsReportedByVerification() throws Exception {
        assertThat(answer(TestTsa.Mode.UNTRUSTED, request()).facts().tsaName()).contains("Stranger TSA");
    }

    @Test
    void refusesAnAnswerToAnotherRequest() throws Exception {
        TimeStampRequest mine = request();
        byte[] theirs = tsa.mode(TestTsa.Mode.OK).respond(request().getEncoded());
        assertThatThrownBy(() -> Rfc3161.accept(mine, theirs)).isInstanceOf(TsaAnswerRejected.class);
    }
}
