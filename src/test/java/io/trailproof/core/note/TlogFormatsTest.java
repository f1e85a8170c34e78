package io.trailproof.core.note;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trailproof.core.merkle.InMemorySubtreeHashes;
import io.trailproof.core.merkle.Reference;
import io.trailproof.core.note.TlogRejection.Kind;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Checkpoint bodies, cosignatures v1, tlog-proof files and add-checkpoint bodies: formats and verification. */
class TlogFormatsTest {
    static final byte[] LOG_SEED = seed(1);
    static final byte[] WITNESS_SEED = seed(2);
    static final String ORIGIN = "example.com/log";
    static final NoteSigner LOG = NoteSigner.of(ORIGIN, LOG_SEED);
    static final String WITNESS_NAME = "witness.example/w1";
    static final InMemorySubtreeHashes TREE =
            InMemorySubtreeHashes.ofLeafHashes(Reference.leafHashes(Reference.randomLeaves(new Random(9), 1000)));

    static byte[] seed(int b) {
        byte[] s = new byte[32];
        s[31] = (byte) b;
        return s;
    }

    static CosignatureVerifier witness() {
        return new CosignatureVerifier(WITNESS_NAME, Ed25519.publicKey(WITNESS_SEED));
    }

    static SignedNote signedCheckpoint(long size) {
        TlogCheckpoint cp = TlogCheckpoint.of(ORIGIN, size, TREE.root(size));
        SignedNote note = LOG.sign(new SignedNote(cp.text(), List.of()));
        return note.withSignatures(List.of(TlogCosignature.sign(WITNESS_NAME, WITNESS_SEED, 1_700_000_000L, cp.text())));
    }

    static TlogProof proofOf(long index, long size) {
        return new TlogProof("extra data".getBytes(StandardCharsets.UTF_8), index,
                TREE.inclusionProof(index, size), signedCheckpoint(size).format());
    }

    @Test
    void checkpointTextIsThreeLinesAndParsesBack() throws TlogRejection {
        TlogCheckpoint cp = TlogCheckpoint.of(ORIGIN, 20852163, TREE.root(1000));
        assertThat(cp.text()).isEqualTo(ORIGIN + "\n20852163\n" + Base64.getEncoder().encodeToString(TREE.root(1000)) + "\n");
        assertThat(TlogCheckpoint.parse(cp.text())).isEqualTo(cp);
        String specExample = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";
        assertThat(TlogCheckpoint.parse(specExample).size()).isEqualTo(20852163);
        assertThat(TlogCheckpoint.parse(specExample + "ext\n").extensions()).containsExactly("ext");
        for (String bad : List.of("o\n1\n", "o\n01\n" + b64(32) + "\n", "o\n-1\n" + b64(32) + "\n",
                "o\n1\n" + b64(31) + "\n", "o\n1\n" + b64(32), "\n1\n" + b64(32) + "\n", "o\n1\n" + b64(32) + "\n\n")) {
            assertThatThrownBy(() -> TlogCheckpoint.parse(bad)).as(bad)
                    .isInstanceOfSatisfying(TlogRejection.class, e -> assertThat(e.kind()).isEqualTo(Kind.MALFORMED_CHECKPOINT));
        }
    }

    private static String b64(int n) {
        return Base64.getEncoder().encodeToString(new byte[n]);
    }

    @Test
    void cosignatureSignsTheTimestampedMessage() throws TlogRejection {
        String text = TlogCheckpoint.of(ORIGIN, 5, TREE.root(5)).text();
        assertThat(new String(TlogCosignature.message(1679315147L, text), StandardCharsets.UTF_8))
                .isEqualTo("cosignature/v1\ntime 1679315147\n" + text);
        NoteSignature sig = TlogCosignature.sign(WITNESS_NAME, WITNESS_SEED, 1679315147L, text);
        assertThat(sig.signature()).hasSize(72);
        assertThat(TlogCosignature.timestamp(sig.signature())).hasValue(1679315147L);
        CosignatureVerifier w = witness();
        assertThat(sig.keyId()).isEqualTo(w.keyId());
        assertThat(w.verify(text, sig.signature())).isTrue();
        assertThat(w.verify(text.replace("\n5\n", "\n6\n"), sig.signature())).isFalse();
        // The vkey form of a cosigner key has type 0x04 and round-trips.
        assertThat(VerifierKey.parse(w.vkey())).isEqualTo(w);
        // A note-signature key (0x01) with the same name and key is another key: it does not verify a cosignature.
        assertThat(new Ed25519NoteVerifier(WITNESS_NAME, Ed25519.publicKey(WITNESS_SEED)).keyId()).isNotEqualTo(w.keyId());
    }

    @Test
    void aCheckpointOpensWithLogAndWitnessKeys() throws TlogRejection {
        SignedNote note = signedCheckpoint(1000);
        NoteVerification.Opened opened = NoteVerification.open(note.bytes(), List.of(LOG.verifier(), witness()));
        assertThat(opened.signedBy(LOG.verifier())).isTrue();
        assertThat(opened.signedBy(witness())).isTrue();
        assertThat(TlogCheckpoint.parse(opened.note().text()).size()).isEqualTo(1000);
    }

    @Test
    void tlogProofRoundTripsAndVerifies() throws TlogRejection {
        TlogProof p = proofOf(123, 1000);
        String text = p.format();
        assertThat(text).startsWith("c2sp.org/tlog-proof@v1\nextra ZXh0cmEgZGF0YQ==\nindex 123\n");
        TlogProof back = TlogProof.parse(text.getBytes(StandardCharsets.UTF_8));
        assertThat(back.format()).isEqualTo(text);
        TlogProof.Verified v = back.verify(TREE.get(0, 123), LOG.verifier(), List.of(witness()));
        assertThat(v.checkpoint().size()).isEqualTo(1000);
        // Without extra data the line is left out.
        TlogProof bare = new TlogProof(null, 0, TREE.inclusionProof(0, 1), signedCheckpoint(1).format());
        assertThat(bare.format()).startsWith("c2sp.org/tlog-proof@v1\nindex 0\n\n");
        assertThat(TlogProof.parse(bare.format().getBytes(StandardCharsets.UTF_8)).verify(TREE.get(0, 0), LOG.verifier(), List.of())
                .checkpoint().size()).isEqualTo(1);
    }

    @Test
    void tlogProofVerificationFailuresAreTyped() {
        TlogProof p = proofOf(123, 1000);
        assertKind(() -> p.verify(TREE.get(0, 124), LOG.verifier(), List.of()), Kind.PROOF_FAILED);
        NoteSigner other = NoteSigner.of(ORIGIN, seed(3));
        assertKind(() -> p.verify(TREE.get(0, 123), other.verifier(), List.of()), Kind.NO_TRUSTED_SIGNATURE);
        CosignatureVerifier absent = new CosignatureVerifier("w2.example", Ed25519.publicKey(seed(4)));
        assertKind(() -> p.verify(TREE.get(0, 123), LOG.verifier(), List.of(absent)), Kind.MISSING_COSIGNATURE);
        NoteSigner misnamed = NoteSigner.of("other.example/log", LOG_SEED);
        TlogProof wrongOrigin = new TlogProof(null, 1, TREE.inclusionProof(1, 2),
                misnamed.sign(new SignedNote(TlogCheckpoint.of(ORIGIN, 2, TREE.root(2)).text(), List.of())).format());
        assertKind(() -> wrongOrigin.verify(TREE.get(0, 1), misnamed.verifier(), List.of()), Kind.WRONG_ORIGIN);
    }

    @Test
    void malformedTlogProofsAreRefused() {
        String good = proofOf(5, 10).format();
        for (String bad : List.of("", "c2sp.org/tlog-proof@v2\n" + good.substring(good.indexOf('\n') + 1),
                good.replace("index 5\n", "index 05\n"), good.replace("index 5\n", ""),
                good.replace("extra ZXh0cmEgZGF0YQ==", "extra !!"), good.substring(0, good.indexOf("\n\n")))) {
            assertKind(() -> TlogProof.parse(bad.getBytes(StandardCharsets.UTF_8)), Kind.MALFORMED_PROOF);
        }
    }

    @Test
    void addCheckpointBodyRoundTrips() throws TlogRejection {
        TlogWitness req = new TlogWitness(500, TREE.consistencyProof(500, 1000), signedCheckpoint(1000).format());
        TlogWitness back = TlogWitness.parse(req.format().getBytes(StandardCharsets.UTF_8));
        assertThat(back.oldSize()).isEqualTo(500);
        assertThat(back.proof()).hasSameSizeAs(req.proof());
        assertThat(back.checkpoint()).isEqualTo(req.checkpoint());
        assertThat(new TlogWitness(0, List.of(), "c\n").format()).isEqualTo("old 0\n\nc\n");
        assertThat(TlogWitness.parseSizeAnswer("42\n")).isEqualTo(42);
        assertThat(TlogWitness.parseSizeAnswer("42")).isEqualTo(-1);
        assertThat(TlogWitness.parseSizeAnswer("042\n")).isEqualTo(-1);
        assertKind(() -> TlogWitness.parse("old x\n\nc\n".getBytes(StandardCharsets.UTF_8)), Kind.MALFORMED_PROOF);
        assertKind(() -> TlogWitness.parseCosignatures("no\n"), Kind.MALFORMED_NOTE);
    }

    interface Call {
        Object run() throws Exception;
    }

    static void assertKind(Call call, Kind kind) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(TlogRejection.class, e -> assertThat(e.kind()).isEqualTo(kind));
    }
}
