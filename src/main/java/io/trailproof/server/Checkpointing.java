package io.trailproof.server;

import io.trailproof.checkpoint.CheckpointKeys;
import io.trailproof.checkpoint.CheckpointScheduler;
import io.trailproof.checkpoint.CheckpointService;
import io.trailproof.checkpoint.ClusterCosignatures;
import io.trailproof.checkpoint.LedgerTree;
import io.trailproof.checkpoint.Tiles;
import io.trailproof.checkpoint.WitnessClient;
import io.trailproof.cluster.ClusterNode;
import io.trailproof.config.Settings;
import io.trailproof.core.note.NoteSigner;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.TlogRejection;
import io.trailproof.core.note.VerifierKey;
import io.trailproof.ledger.Ledger;
import io.trailproof.server.TrailproofServer.StartException;

import java.io.IOException;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The checkpoints part of the service (src/site/checkpoints.md): the signed checkpoints of the ledger's
 * tree, the scheduler that signs them and the witnesses asked to cosign them.
 */
final class Checkpointing implements AutoCloseable {

    private final Settings settings;
    private final CheckpointService service;
    private final LedgerTree tree;
    private final List<NoteVerifier> witnessKeys;
    private final CheckpointScheduler scheduler;
    private final List<WitnessClient> witnesses = new ArrayList<>();

    private Checkpointing(Settings settings, CheckpointService service, LedgerTree tree, List<NoteVerifier> witnessKeys) {
        this.settings = settings;
        this.service = service;
        this.tree = tree;
        this.witnessKeys = List.copyOf(witnessKeys);
        this.scheduler = new CheckpointScheduler(service, settings.checkpoints().interval());
    }

    /** Loads (or creates) the signing key, reads the witnesses' keys and opens the stored checkpoints. */
    static Checkpointing open(Settings settings, Ledger ledger, SecureRandom random) throws IOException, StartException {
        Settings.Checkpoints cps = settings.checkpoints();
        NoteSigner signer;
        List<NoteVerifier> witnessKeys = new ArrayList<>();
        try {
            signer = CheckpointKeys.loadOrCreate(settings.dataDir(), cps.signingKey(), cps.origin(), random);
            for (Settings.Witness w : cps.witnesses()) {
                witnessKeys.add(VerifierKey.parse(w.vkey()));
            }
        } catch (IllegalArgumentException e) {
            throw new StartException(e.getMessage());
        } catch (TlogRejection e) {
            throw new StartException("checkpoint.witnesses: " + e.getMessage());
        }
        LedgerTree tree = new LedgerTree(ledger);
        return new Checkpointing(settings, CheckpointService.open(settings.dataDir(), signer, tree), tree, witnessKeys);
    }

    /** What verifies and keeps the cosignatures another node replicates (cluster mode). */
    ClusterCosignatures cosignatures() {
        return new ClusterCosignatures(service, witnessKeys);
    }

    /**
     * One client a configured witness, asked to cosign each checkpoint signed.
     *
     * @param cluster this node's part in a cluster, or null
     */
    void addWitnesses(Clock clock, ClusterNode cluster) throws IOException {
        List<Settings.Witness> configured = settings.checkpoints().witnesses();
        for (int i = 0; i < configured.size(); i++) {
            WitnessClient client = new WitnessClient(witnessKeys.get(i), configured.get(i).addCheckpointUrl(),
                    service, tree, clock, settings.dataDir());
            if (cluster != null) {
                // asked by the node running the scheduled work only; its cosignatures reach every node
                client.joinCluster((cp, sig) -> cluster.publishCosignature(cp.checkpoint(), sig));
            }
            witnesses.add(client);
            service.onSigned(c -> client.checkpointSigned());
            service.addProblemSource(client::problem);
        }
    }

    /** Signs at once (a fresh log gets its size-0 checkpoint), then every checkpoint.interval. */
    void start() {
        scheduler.start();
        // The latest checkpoint may lack a cosignature from before a restart: ask once now.
        witnesses.forEach(WitnessClient::checkpointSigned);
    }

    CheckpointService service() {
        return service;
    }

    Tiles tiles() {
        return new Tiles(tree, service);
    }

    CheckpointScheduler scheduler() {
        return scheduler;
    }

    List<WitnessClient> witnesses() {
        return List.copyOf(witnesses);
    }

    /** Stops signing, then stops asking the witnesses. */
    @Override
    public void close() {
        scheduler.close();
        witnesses.forEach(WitnessClient::close);
    }
}
