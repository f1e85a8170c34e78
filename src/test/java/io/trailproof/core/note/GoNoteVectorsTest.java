package io.trailproof.core.note;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trailproof.core.note.TlogRejection.Kind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Known answers of Go's {@code golang.org/x/mod/sumdb/note} ({@code note_test.go}): the
 * {@code PeterNeumann} and {@code EnochRoot} keys, the expected signature line (Ed25519 is
 * deterministic, so ours must match byte for byte) and the negative cases of the same file.
 */
class GoNoteVectorsTest {
    static final String PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
    static final String PETER_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
    static final String ENOCH_VKEY = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop";
    static final String TEXT = "If you think cryptography is the answer to your problem,\n"
            + "then you don't know what your problem is.\n";
    static final String PETER_SIG = "\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
    static final String ENOCH_SIG = "\u2014 EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n";

    private static NoteVerifier peter() throws TlogRejection {
        return VerifierKey.parse(PETER_VKEY);
    }

    private static NoteVerifier enoch() throws TlogRejection {
        return VerifierKey.parse(ENOCH_VKEY);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void verifierKeyParsesAndEveryManglingIsRefused() throws TlogRejection {
        NoteVerifier v = peter();
        assertThat(v.name()).isEqualTo("PeterNeumann");
        assertThat(v.keyId()).isEqualTo(0xc74f20a3);
        assertThat(v.vkey()).isEqualTo(PETER_VKEY);
        byte[] b = utf8(PETER_VKEY);
        for (int i = 0; i <= b.length; i++) {
            for (int j = i + 1; j <= b.length; j++) {
                if (i != 0 || j != b.length) {
                    assertBadVkey(new String(b, i, j - i, StandardCharsets.UTF_8));
                }
            }
        }
        for (int i = 0; i < b.length; i++) {
            b[i]++;
            assertBadVkey(new String(b, StandardCharsets.UTF_8));
            b[i]--;
        }
        // wrong length key, with adjusted key hash; unknown algorithm, with adjusted key hash
        assertBadVkey("PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==");
        assertBadVkey("PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW");
    }

    private static void assertBadVkey(String k) {
        assertThatThrownBy(() -> VerifierKey.parse(k)).as(k)
                .isInstanceOfSatisfying(TlogRejection.class, e -> assertThat(e.kind()).isEqualTo(Kind.MALFORMED_KEY));
    }

    @Test
    void privateKeyParsesToTheSameKeyAndEveryManglingIsRefused() throws TlogRejection {
        NoteSigner signer = NoteSigner.parse(PETER_SKEY);
        assertThat(signer.vkey()).isEqualTo(PETER_VKEY);
        assertThat(signer.privateKeyText()).isEqualTo(PETER_SKEY);
        assertThat(signer.toString()).doesNotContain("AYEKFALV");
        byte[] b = utf8(PETER_SKEY);
        for (int i = 0; i <= b.length; i++) {
            for (int j = i + 1; j <= b.length; j++) {
                if (i != 0 || j != b.length) {
                    assertBadSkey(new String(b, i, j - i, StandardCharsets.UTF_8));
                }
            }
        }
        for (int i = 0; i < b.length; i++) {
            b[i]++;
            assertBadSkey(new String(b, StandardCharsets.UTF_8));
            b[i]--;
        }
    }

    private static void assertBadSkey(String k) {
        assertThatThrownBy(() -> NoteSigner.parse(k)).as(k)
                .isInstanceOfSatisfying(TlogRejection.class, e -> assertThat(e.kind()).isEqualTo(Kind.MALFORMED_KEY));
    }

    @Test
    void signingReproducesGosSignatureLineByteForByte() throws TlogRejection {
        NoteSigner signer = NoteSigner.parse(PETER_SKEY);
        String want = TEXT + "\n" + PETER_SIG;
        assertThat(signer.sign(new SignedNote(TEXT, List.of())).format()).isEqualTo(want);
        // An existing signature by the same key is replaced.
        SignedNote withBad = new SignedNote(TEXT, List.of(new NoteSignature("PeterNeumann", 0xc74f20a3, new byte[] {1, 2})));
        assertThat(signer.sign(withBad).format()).isEqualTo(want);
    }

    @Test
    void signerAndVerifierAgreeOnAFreshKey() throws TlogRejection {
        byte[] seed = new byte[32];
        seed[0] = 7;
        NoteSigner signer = NoteSigner.of("EnochRoot", seed);
        NoteVerifier v = VerifierKey.parse(signer.vkey());
        assertThat(v.keyId()).isEqualTo(signer.keyId());
        byte[] sig = signer.sign("hi\n").signature();
        assertThat(v.verify("hi\n", sig)).isTrue();
        sig[0]++;
        assertThat(v.verify("hi\n", sig)).isFalse();
        sig[0]--;
        assertThat(v.verify("hj\n", sig)).isFalse();
    }

    @Test
    void openVerifiesKnownKeysAndKeepsUnknownOnesUnverified() throws TlogRejection {
        byte[] note = utf8(TEXT + "\n" + PETER_SIG + ENOCH_SIG);
        NoteVerification.Opened one = NoteVerification.open(note, List.of(peter()));
        assertThat(one.note().text()).isEqualTo(TEXT);
        assertThat(one.verified()).extracting(NoteSignature::name).containsExactly("PeterNeumann");
        assertThat(one.unverified()).extracting(NoteSignature::name).containsExactly("EnochRoot");

        NoteVerification.Opened both = NoteVerification.open(note, List.of(peter(), enoch()));
        assertThat(both.verified()).extracting(NoteSignature::name).containsExactly("PeterNeumann", "EnochRoot");
        assertThat(both.unverified()).isEmpty();

        assertRejected(note, List.of(), Kind.NO_TRUSTED_SIGNATURE, "note has no verifiable signatures");
    }

    @Test
    void duplicatedVerifierIsAmbiguousOnlyWhenUsed() throws TlogRejection {
        assertRejected(utf8(TEXT + "\n" + ENOCH_SIG), List.of(enoch(), peter(), enoch()), Kind.AMBIGUOUS_KEY,
                "ambiguous key EnochRoot+af0cfe78");
        NoteVerification.open(utf8(TEXT + "\n" + PETER_SIG), List.of(enoch(), peter(), enoch()));
    }

    @Test
    void signatureCountIsLimitedAbove16() throws TlogRejection {
        assertThat(NoteVerification.open(utf8(TEXT + "\n" + PETER_SIG.repeat(16)), List.of(peter())).verified())
                .hasSize(1);
        assertThat(NoteVerification.open(utf8(TEXT + "\n" + PETER_SIG.repeat(100)), List.of(peter())).verified())
                .hasSize(1);
        assertRejected(utf8(TEXT + "\n" + PETER_SIG.repeat(101)), List.of(peter()), Kind.MALFORMED_NOTE, null);
        assertRejected(utf8(TEXT + "\n" + PETER_SIG.repeat(101)), List.of(), Kind.MALFORMED_NOTE, null);
    }

    @Test
    void aBadSignatureByAKnownKeyRefusesTheWholeNote() throws TlogRejection {
        String bad = PETER_SIG.substring(0, 60) + "ABCD" + PETER_SIG.substring(60);
        assertRejected(utf8(TEXT + "\n" + bad), List.of(peter()), Kind.INVALID_SIGNATURE,
                "invalid signature for key PeterNeumann+c74f20a3");
    }

    @Test
    void duplicatedSignaturesAreCountedOnce() throws TlogRejection {
        String enochAbcd = ENOCH_SIG.substring(0, 60) + "ABCD" + ENOCH_SIG.substring(60);
        NoteVerification.Opened n = NoteVerification.open(
                utf8(TEXT + "\n" + PETER_SIG + PETER_SIG + ENOCH_SIG + ENOCH_SIG + enochAbcd), List.of(peter()));
        assertThat(n.verified()).hasSize(1);
        assertThat(n.unverified()).hasSize(2);
        assertThat(n.unverified().get(1).base64()).isEqualTo(enochAbcd.substring(12, enochAbcd.length() - 1));
    }

    @Test
    void malformedNotesAreRefused() throws TlogRejection {
        List<String> bad = List.of(
                TEXT,
                TEXT + "\n",
                TEXT + "\n" + PETER_SIG.substring(0, PETER_SIG.length() - 1),
                "\u0001" + TEXT + "\n" + PETER_SIG,
                TEXT + "\n" + "\u2014 Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=",
                TEXT + "\n" + PETER_SIG + "Unexpected line.\n");
        for (String msg : bad) {
            assertRejected(utf8(msg), List.of(peter()), Kind.MALFORMED_NOTE, null);
        }
        byte[] invalidUtf8 = utf8("?" + TEXT + "\n" + PETER_SIG);
        invalidUtf8[0] = (byte) 0xff;
        assertRejected(invalidUtf8, List.of(peter()), Kind.MALFORMED_NOTE, null);
    }

    @Test
    void aSignatureUnderAnotherNameOrIdIsIgnoredNotTrusted() throws TlogRejection {
        String misnamed = PETER_SIG.replace("PeterNeumann", "CarmenSandiego");
        assertRejected(utf8(TEXT + "\n" + misnamed), List.of(peter()), Kind.NO_TRUSTED_SIGNATURE, null);
        String wrongId = PETER_SIG.replace("x08g", "xxxx");
        assertRejected(utf8(TEXT + "\n" + wrongId), List.of(peter()), Kind.NO_TRUSTED_SIGNATURE, null);
    }

    static void assertRejected(byte[] note, List<NoteVerifier> keys, Kind kind, String message) {
        assertThatThrownBy(() -> NoteVerification.open(note, keys))
                .isInstanceOfSatisfying(TlogRejection.class, e -> {
                    assertThat(e.kind()).isEqualTo(kind);
                    if (message != null) {
                        assertThat(e.getMessage()).startsWith(message);
                    }
                });
    }
}
