package io.trailproof.core.note;

import static io.trailproof.core.note.TlogFormatsTest.LOG;
import static io.trailproof.core.note.TlogFormatsTest.TREE;
import static io.trailproof.core.note.TlogFormatsTest.witness;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.trailproof.core.merkle.InMemorySubtreeHashes;
import io.trailproof.core.merkle.Reference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The mutation table: one byte changed anywhere in a signed checkpoint, a cosignature, a
 * tlog-proof or a tile, and the verifier refuses. Every byte position is tried with two changes
 * (low bit flipped, byte incremented).
 */
class MutationTableTest {

    private static List<byte[]> mutations(byte[] original) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < original.length; i++) {
            for (int delta : new int[] {-1, 1}) {
                byte[] m = original.clone();
                m[i] = delta < 0 ? (byte) (m[i] ^ 1) : (byte) (m[i] + 1);
                out.add(m);
            }
        }
        return out;
    }

    private static boolean accepted(TlogFormatsTest.Call call) {
        try {
            call.run();
            return true;
        } catch (TlogRejection e) {
            return false;
        } catch (Exception e) {
            throw new AssertionError("a mutation must be refused with a TlogRejection, not " + e, e);
        }
    }

    @Test
    void signedCheckpointWithCosignature() {
        byte[] note = TlogFormatsTest.signedCheckpoint(1000).bytes();
        List<NoteVerifier> keys = List.of(LOG.verifier(), witness());
        assertThat(accepted(() -> requireBoth(NoteVerification.open(note, keys)))).isTrue();
        int n = 0;
        for (byte[] m : mutations(note)) {
            if (accepted(() -> requireBoth(NoteVerification.open(m, keys)))) {
                fail("accepted a changed note:\n" + new String(m, StandardCharsets.UTF_8));
            }
            n++;
        }
        assertThat(n).isEqualTo(2 * note.length);
    }

    private static Object requireBoth(NoteVerification.Opened o) throws TlogRejection {
        // A caller that trusts a log and a witness requires both signatures (unknown ones are ignored).
        if (!o.signedBy(LOG.verifier()) || !o.signedBy(witness())) {
            throw new TlogRejection(TlogRejection.Kind.MISSING_COSIGNATURE, "missing", "");
        }
        return o;
    }

    @Test
    void cosignatureLine() {
        String text = TlogCheckpoint.of(TlogFormatsTest.ORIGIN, 1000, TREE.root(1000)).text();
        String line = TlogCosignature.sign(TlogFormatsTest.WITNESS_NAME, TlogFormatsTest.WITNESS_SEED, 1_700_000_000L, text)
                .line();
        byte[] lineBytes = line.getBytes(StandardCharsets.UTF_8);
        CosignatureVerifier w = witness();
        TlogFormatsTest.Call check = () -> verifyLine(lineBytes, text, w);
        assertThat(accepted(check)).isTrue();
        for (byte[] m : mutations(lineBytes)) {
            if (accepted(() -> verifyLine(m, text, w))) {
                fail("accepted a changed cosignature: " + new String(m, StandardCharsets.UTF_8));
            }
        }
    }

    private static Object verifyLine(byte[] line, String text, CosignatureVerifier w) throws TlogRejection {
        List<NoteSignature> sigs = TlogWitness.parseCosignatures(new String(line, StandardCharsets.UTF_8));
        SignedNote note = new SignedNote(text, sigs);
        NoteVerification.Opened o = NoteVerification.open(note.bytes(), List.of(w));
        return o;
    }

    @Test
    void tlogProof() {
        TlogProof p = new TlogProof(null, 123, TREE.inclusionProof(123, 1000),
                TlogFormatsTest.signedCheckpoint(1000).format());
        byte[] file = p.format().getBytes(StandardCharsets.UTF_8);
        byte[] leaf = TREE.get(0, 123);
        assertThat(accepted(() -> TlogProof.parse(file).verify(leaf, LOG.verifier(), List.of(witness())))).isTrue();
        for (byte[] m : mutations(file)) {
            if (accepted(() -> TlogProof.parse(m).verify(leaf, LOG.verifier(), List.of(witness())))) {
                fail("accepted a changed proof:\n" + new String(m, StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void tiles() throws Exception {
        InMemorySubtreeHashes tree = InMemorySubtreeHashes.ofLeafHashes(
                Reference.leafHashes(Reference.randomLeaves(new Random(11), 70_000)));
        long size = 70_000;
        byte[] want = tree.root(size);
        for (String path : List.of("tile/0/273.p/112", "tile/1/001.p/17", "tile/2/000.p/1")) {
            TilePath target = TilePath.parse(path);
            byte[] original = TiledTreeTest.tileBytes(tree, target);
            for (byte[] m : mutations(original)) {
                byte[] root = TiledTree.root(size, t -> t.equals(target) ? m : TiledTreeTest.tileBytes(tree, t));
                assertThat(root).as(path).isNotEqualTo(want);
            }
        }
    }
}
