package io.trailproof.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trailproof.core.merkle.InMemorySubtreeHashes;
import io.trailproof.core.merkle.Reference;
import io.trailproof.core.note.CosignatureVerifier;
import io.trailproof.core.note.Ed25519;
import io.trailproof.core.note.NoteSignature;
import io.trailproof.core.note.NoteSigner;
import io.trailproof.core.note.NoteVerification;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.note.TlogCosignature;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Signing rules of {@link CheckpointService} over an in-memory tree: grow, persist, never contradict. */
class CheckpointServiceTest {
    private static final NoteSigner SIGNER = NoteSigner.of("example.com/log", new byte[32]);

    @TempDir
    Path dir;

    /** A tree whose visible size the test sets; leaves fixed by a seed. */
    static final class Tree implements LogTree {
        final InMemorySubtreeHashes nodes;
        long size;

        Tree(long seed, int leaves) {
            nodes = InMemorySubtreeHashes.ofLeafHashes(Reference.leafHashes(Reference.randomLeaves(new Random(seed), leaves)));
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public byte[] root(long s) {
            return nodes.root(s);
        }

        @Override
        public List<byte[]> consistencyProof(long m, long n) {
            return nodes.consistencyProof(m, n);
        }

        @Override
        public byte[] nodes(int level, long from, int count) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<byte[]> leaves(long from, int count) {
            throw new UnsupportedOperationException();
        }
    }

    private static byte[] seed(int b) {
        byte[] s = new byte[32];
        s[0] = (byte) b;
        return s;
    }

    @Test
    void signsOnlyWhenTheTreeGrewAndPersistsFirst() throws Exception {
        Tree tree = new Tree(1, 100);
        CheckpointService s = CheckpointService.open(dir, SIGNER, tree);
        assertThat(s.signIfGrown()).isPresent(); // the empty tree
        assertThat(s.latest().orElseThrow().size()).isZero();
        assertThat(s.signIfGrown()).isEmpty();
        tree.size = 10;
        SignedCheckpoint ten = s.signIfGrown().orElseThrow();
        assertThat(ten.size()).isEqualTo(10);
        assertThat(Files.readString(dir.resolve(CheckpointFile.NAME), StandardCharsets.UTF_8)).isEqualTo(ten.text());
        NoteVerification.open(ten.note().bytes(), List.of(SIGNER.verifier()));
        assertThat(s.signIfGrown()).isEmpty();
        assertThat(s.problems()).isEmpty();

        // Reopened, it carries on from the stored checkpoint.
        CheckpointService again = CheckpointService.open(dir, SIGNER, tree);
        assertThat(again.latest().orElseThrow().text()).isEqualTo(ten.text());
        tree.size = 11;
        assertThat(again.signIfGrown().orElseThrow().size()).isEqualTo(11);
    }

    @Test
    void aTreeThatLostEventsOrChangedHistoryStopsSigning() throws Exception {
        Tree tree = new Tree(1, 100);
        tree.size = 50;
        CheckpointService.open(dir, SIGNER, tree).signIfGrown();
        tree.size = 40;
        CheckpointService shorter = CheckpointService.open(dir, SIGNER, tree);
        assertThat(shorter.problems()).singleElement().asString().contains("lost events");
        tree.size = 60;
        assertThat(shorter.signIfGrown()).isEmpty(); // for good, even once it grows again
        assertThat(shorter.latest().orElseThrow().size()).isEqualTo(50);

        Tree other = new Tree(2, 100);
        other.size = 60;
        CheckpointService rewritten = CheckpointService.open(dir, SIGNER, other);
        assertThat(rewritten.refusal()).get().asString().contains("history changed");
        assertThat(rewritten.signIfGrown()).isEmpty();
    }

    @Test
    void aStoredCheckpointNotSignedByTheKeyStopsSigning() throws Exception {
        Tree tree = new Tree(1, 100);
        tree.size = 5;
        CheckpointService.open(dir, SIGNER, tree).signIfGrown();
        CheckpointService s = CheckpointService.open(dir, NoteSigner.of("example.com/log", seed(9)), tree);
        assertThat(s.refusal()).isPresent();
        assertThat(s.signIfGrown()).isEmpty();
    }

    @Test
    void notesForOtherSizesAreConsistentPrefixesAndCosignaturesAreKept() throws Exception {
        Tree tree = new Tree(1, 100);
        tree.size = 30;
        CheckpointService s = CheckpointService.open(dir, SIGNER, tree);
        s.signIfGrown();
        String twenty = s.noteFor(20).orElseThrow();
        TlogCheckpoint cp = TlogCheckpoint.parse(
                NoteVerification.open(twenty.getBytes(StandardCharsets.UTF_8), List.of(SIGNER.verifier())).note().text());
        assertThat(cp.root()).isEqualTo(tree.root(20));
        assertThat(s.latest().orElseThrow().size()).isEqualTo(30); // an earlier size never becomes the latest
        tree.size = 40;
        assertThat(s.noteFor(40)).isPresent();
        assertThat(s.latest().orElseThrow().size()).isEqualTo(40); // a later one is signed as the latest first
        assertThat(s.noteFor(41)).isEmpty();

        NoteSignature cosig = TlogCosignature.sign("w.example", seed(1), 1_700_000_000L,
                s.latest().orElseThrow().note().text());
        assertThat(s.addCosignature(39, cosig)).isFalse();
        assertThat(s.addCosignature(40, cosig)).isTrue();
        assertThat(s.latestCosigned().orElseThrow().cosignatures()).containsExactly(cosig);
        assertThat(CheckpointService.open(dir, SIGNER, tree).latest().orElseThrow().cosignatures()).containsExactly(cosig);
    }

    @Test
    void aReplicatedCosignatureIsKeptWithThisNodesCheckpointOfItsSize() throws Exception {
        Tree tree = new Tree(3, 100);
        CheckpointService s = CheckpointService.open(dir, SIGNER, tree);
        tree.size = 10;
        s.signIfGrown();
        tree.size = 30;   // the apply loop has applied past the cosigned size

        // Past the latest signed size: signed now, as the new latest, persisted with the cosignature.
        TlogCheckpoint at20 = TlogCheckpoint.of(SIGNER.name(), 20, tree.root(20));
        NoteSignature w20 = TlogCosignature.sign("w.example", seed(1), 1_700_000_000L, at20.text());
        assertThat(s.adoptCosignature(at20, w20)).isTrue();
        assertThat(s.latest().orElseThrow().size()).isEqualTo(20);
        assertThat(s.latest().orElseThrow().cosignatures()).containsExactly(w20);
        NoteVerification.open(s.latest().orElseThrow().note().bytes(), List.of(SIGNER.verifier()));
        assertThat(CheckpointService.open(dir, SIGNER, tree).latest().orElseThrow().cosignatures()).containsExactly(w20);
        assertThat(s.adoptCosignature(at20, w20)).isTrue();   // applied again (after a crash): kept once
        assertThat(s.latest().orElseThrow().cosignatures()).containsExactly(w20);

        // At the latest size: added, as a witness's own answer would be.
        NoteSignature other = TlogCosignature.sign("w2.example", seed(2), 1_700_000_001L, at20.text());
        assertThat(s.adoptCosignature(at20, other)).isTrue();
        assertThat(s.latest().orElseThrow().cosignatures()).containsExactly(w20, other);

        // Below the latest size: the latest stays; the cosigned checkpoint is the latest cosigned one.
        s.signIfGrown();
        assertThat(s.latest().orElseThrow().size()).isEqualTo(30);
        TlogCheckpoint at25 = TlogCheckpoint.of(SIGNER.name(), 25, tree.root(25));
        NoteSignature w25 = TlogCosignature.sign("w.example", seed(1), 1_700_000_002L, at25.text());
        assertThat(s.adoptCosignature(at25, w25)).isTrue();
        assertThat(s.latest().orElseThrow().size()).isEqualTo(30);
        assertThat(s.latest().orElseThrow().cosignatures()).isEmpty();
        SignedCheckpoint cosigned = s.latestCosigned().orElseThrow();
        assertThat(cosigned.size()).isEqualTo(25);
        assertThat(cosigned.cosignatures()).containsExactly(w25);
        NoteVerification.open(cosigned.note().bytes(), List.of(SIGNER.verifier()));

        // Another origin, a root this tree does not have, a size it does not reach: nothing kept.
        assertThat(s.adoptCosignature(TlogCheckpoint.of("other.example/log", 30, tree.root(30)), w25)).isFalse();
        assertThat(s.adoptCosignature(TlogCheckpoint.of(SIGNER.name(), 30, tree.root(29)), w25)).isFalse();
        assertThat(s.adoptCosignature(TlogCheckpoint.of(SIGNER.name(), 31, tree.root(31)), w25)).isFalse();
        assertThat(s.latest().orElseThrow().cosignatures()).isEmpty();
    }

    @Test
    void aReplicatedCosignatureIsVerifiedWithThisNodesWitnessKeys() throws Exception {
        Tree tree = new Tree(4, 100);
        tree.size = 10;
        CheckpointService s = CheckpointService.open(dir, SIGNER, tree);
        s.signIfGrown();
        NoteVerifier witness = new CosignatureVerifier("w.example",
                Ed25519.publicKey(seed(1)));
        ClusterCosignatures cluster = new ClusterCosignatures(s, List.of(witness));
        TlogCheckpoint at10 = TlogCheckpoint.of(SIGNER.name(), 10, tree.root(10));

        // By a witness this node does not know: a difference of configuration, not kept, no failure.
        cluster.adopt(at10, TlogCosignature.sign("unknown.example", seed(9), 1_700_000_000L, at10.text()));
        assertThat(s.latest().orElseThrow().cosignatures()).isEmpty();
        // By the configured key but not over this checkpoint: damage or forgery, the apply loop stops.
        NoteSignature forged = TlogCosignature.sign("w.example", seed(1), 1_700_000_000L,
                TlogCheckpoint.of(SIGNER.name(), 9, tree.root(9)).text());
        assertThatThrownBy(() -> cluster.adopt(at10, forged))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("does not verify");
        assertThat(s.latest().orElseThrow().cosignatures()).isEmpty();
        // A genuine one: kept.
        NoteSignature good = TlogCosignature.sign("w.example", seed(1), 1_700_000_000L, at10.text());
        cluster.adopt(at10, good);
        assertThat(s.latest().orElseThrow().cosignatures()).containsExactly(good);
    }
}
