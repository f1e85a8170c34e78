package io.trailproof.core.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.evidence.CheckResult.Outcome;
import io.trailproof.core.note.NoteSigner;
import io.trailproof.core.note.SignedNote;
import io.trailproof.core.note.TlogCheckpoint;
import java.io.ByteArrayInputStream;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The package's signed checkpoint (src/site/checkpoints.md): checked with --log-key, reported as not done without. */
class EvidenceCheckpointTest {
    private static final NoteSigner LOG = NoteSigner.of("example.com/audit", new byte[32]);

    private static CheckResult checkpointResult(ObjectNode pack, boolean withKey) throws Exception {
        EvidenceReport r = new EvidenceVerifier(TokenChecker.UNAVAILABLE, withKey ? LOG.verifier() : null)
                .verify(new ByteArrayInputStream(PackageFixture.JSON.writeValueAsBytes(pack)));
        return r.checks().stream().filter(c -> c.check() == EvidenceCheck.CHECKPOINT).findFirst().orElseThrow();
    }

    private static String note(NoteSigner signer, long size, byte[] root) {
        return signer.sign(new SignedNote(TlogCheckpoint.of(signer.name(), size, root).text(), List.of())).format();
    }

    @Test
    void passesForTheExactTreeFailsOtherwise() throws Exception {
        PackageFixture f = new PackageFixture(new Random(1), 40, "a", "b");
        long size = f.tree.size();
        ObjectNode pack = f.pack("a");
        assertThat(checkpointResult(pack, true).outcome()).isEqualTo(Outcome.FAILED); // none in the package
        assertThat(checkpointResult(pack, false).outcome()).isEqualTo(Outcome.SKIPPED);
        assertThat(checkpointResult(pack, false).detail()).contains("--log-key");

        pack.put("checkpoint", note(LOG, size, f.tree.root(size)));
        assertThat(checkpointResult(pack, true).outcome()).isEqualTo(Outcome.PASSED);
        assertThat(checkpointResult(pack, false).outcome()).isEqualTo(Outcome.SKIPPED);

        pack.put("checkpoint", note(LOG, size - 1, f.tree.root(size - 1)));
        assertThat(checkpointResult(pack, true).outcome()).isEqualTo(Outcome.FAILED);
        NoteSigner other = NoteSigner.of("example.com/audit", new byte[] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
            1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
        pack.put("checkpoint", note(other, size, f.tree.root(size)));
        assertThat(checkpointResult(pack, true).outcome()).isEqualTo(Outcome.FAILED);
        String good = note(LOG, size, f.tree.root(size));
        pack.put("checkpoint", good.replace("\n" + size + "\n", "\n" + (size + 1) + "\n"));
        assertThat(checkpointResult(pack, true).outcome()).isEqualTo(Outcome.FAILED);
    }
}
