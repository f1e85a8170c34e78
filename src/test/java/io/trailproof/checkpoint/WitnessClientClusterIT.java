package io.trailproof.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.trailproof.core.note.NoteSigner;
import io.trailproof.core.note.VerifierKey;
import io.trailproof.testing.Await;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The witness client as one node of a cluster uses it ({@link WitnessClient#joinCluster}), against
 * the spec-following {@link TestWitness}: it asks only while resumed, hands cosignatures to the
 * cluster's sink, and a witness that holds a size past this node's checkpoints (another node of the
 * log signed it) is asked again rather than taken for a split view, which it is for a lone log.
 */
class WitnessClientClusterIT {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final NoteSigner SIGNER = NoteSigner.of("example.com/log", new byte[32]);

    @TempDir
    Path dir;

    @Test
    void inAClusterAWitnessAheadOfThisNodeIsAskedAgainLaterAndPausedClientsDoNotAsk() throws Exception {
        CheckpointServiceTest.Tree tree = new CheckpointServiceTest.Tree(5, 100);
        tree.size = 20;
        CheckpointService checkpoints = CheckpointService.open(dir.resolve("data"), SIGNER, tree);
        checkpoints.signIfGrown();
        try (TestWitness witness = new TestWitness(SIGNER.vkey(), dir.resolve("witness"), 0)) {
            witness.store(30, tree.root(30));   // another node of the log signed 30 and had it cosigned
            List<SignedCheckpoint> kept = new CopyOnWriteArrayList<>();
            WitnessClient client = new WitnessClient(VerifierKey.parse(TestWitness.vkey()), URI.create(witness.url()),
                    checkpoints, tree, Clock.systemUTC(), dir.resolve("data"));
            try {
                client.joinCluster((cp, sig) -> kept.add(cp.withCosignature(sig)));
                checkpoints.onSigned(c -> client.checkpointSigned());
                client.checkpointSigned();
                Await.nothingHappensWithin("a client not yet resumed asks the witness");
                assertThat(witness.requests.get()).as("paused until this node runs the scheduled work").isZero();

                client.resume();
                Await.until("the resumed client asks the witness", WAIT, () -> witness.requests.get() >= 1);
                Await.nothingHappensWithin("the client takes a witness ahead of this node for a split view");
                assertThat(client.problem()).as("a witness ahead of this node is not a split view in a cluster").isEmpty();
                assertThat(kept).isEmpty();

                tree.size = 40;   // this node signs past the witness's size: asked again, from 30
                checkpoints.signIfGrown();
                Await.until("a cosignature is handed to the cluster", WAIT, () -> !kept.isEmpty());
                assertThat(kept.get(0).size()).isEqualTo(40);
                assertThat(kept.get(0).cosignatures()).hasSize(1);
                assertThat(client.problem()).isEmpty();
                assertThat(checkpoints.latest().orElseThrow().cosignatures())
                        .as("the cluster keeps it (through the topic), not the client").isEmpty();

                client.pause();
                Await.nothingHappensWithin("a paused client starts a request (one already under way may still land)");
                int asked = witness.requests.get();
                tree.size = 50;
                checkpoints.signIfGrown();
                Await.nothingHappensWithin("a paused client asks the witness about a newly signed checkpoint");
                assertThat(witness.requests.get()).as("paused: another node asks").isEqualTo(asked);
            } finally {
                client.close();
            }
        }
    }

    @Test
    void aloneAWitnessAheadOfTheLogIsASplitView() throws Exception {
        CheckpointServiceTest.Tree tree = new CheckpointServiceTest.Tree(5, 100);
        tree.size = 20;
        CheckpointService checkpoints = CheckpointService.open(dir.resolve("data"), SIGNER, tree);
        checkpoints.signIfGrown();
        try (TestWitness witness = new TestWitness(SIGNER.vkey(), dir.resolve("witness"), 0)) {
            witness.store(30, tree.root(30));
            WitnessClient client = new WitnessClient(VerifierKey.parse(TestWitness.vkey()), URI.create(witness.url()),
                    checkpoints, tree, Clock.systemUTC(), dir.resolve("data"));
            try {
                client.checkpointSigned();
                Await.until("the client reports a split view", WAIT, () -> client.problem().isPresent());
                assertThat(client.problem().orElseThrow()).contains("SPLIT VIEW").contains("larger than any checkpoint");
            } finally {
                client.close();
            }
        }
    }
}
