package io.trailproof.core.evidence;

import io.trailproof.core.note.NoteVerification;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.note.TlogRejection;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * The package's signed checkpoint (src/site/checkpoints.md): with the log's key, the {@code checkpoint} member
 * must be a note signed by it, of its origin, for exactly the package's {@code tree_size} and
 * {@code merkle_root}; a package without one fails. Without a key the check is reported as not done,
 * so packages written before checkpoints existed still verify.
 */
final class CheckpointChecker {

    private CheckpointChecker() {}

    static CheckResult result(PackageHeader header, NoteVerifier logKey) {
        EvidenceCheck check = EvidenceCheck.CHECKPOINT;
        if (logKey == null) {
            return CheckResult.skipped(check, "not done: pass --log-key VKEY (the vkey of GET /v1/checkpoint/key) "
                    + "to check the log's signed checkpoint");
        }
        var member = header.get(EvidenceFormat.CHECKPOINT);
        if (member == null || !member.isTextual()) {
            return failed("a signed checkpoint", "none", "the package carries no signed checkpoint (it was "
                    + "exported before checkpoints existed, or the member was removed)");
        }
        TlogCheckpoint cp;
        try {
            NoteVerification.Opened opened = NoteVerification.open(member.asText().getBytes(StandardCharsets.UTF_8),
                    List.of(logKey));
            cp = TlogCheckpoint.parse(opened.note().text());
        } catch (TlogRejection e) {
            return failed("a checkpoint signed by " + logKey.name(), e.kind().name().toLowerCase(Locale.ROOT),
                    e.getMessage());
        }
        if (!cp.origin().equals(logKey.name())) {
            return failed("origin " + logKey.name(), cp.origin(), "the checkpoint is of another log");
        }
        Long size = header.treeSize();
        byte[] root = header.merkleRoot();
        if (size == null || root == null || size != cp.size() || !Arrays.equals(root, cp.root())) {
            HexFormat hex = HexFormat.of();
            return failed("tree size " + size + ", root " + (root == null ? null : hex.formatHex(root)),
                    "tree size " + cp.size() + ", root " + hex.formatHex(cp.root()),
                    "the signed checkpoint is not for the package's tree size and root");
        }
        return CheckResult.passed(check, "signed by " + logKey.name() + " for tree size " + cp.size());
    }

    private static CheckResult failed(String expected, String actual, String detail) {
        return new CheckResult(EvidenceCheck.CHECKPOINT, CheckResult.Outcome.FAILED, null, null, expected, actual,
                detail, 1);
    }
}
