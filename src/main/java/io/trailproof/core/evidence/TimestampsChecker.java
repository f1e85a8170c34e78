package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.EvidenceFormat.*;
import static io.trailproof.core.evidence.FormatValues.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.evidence.CheckResult.Outcome;
import io.trailproof.core.evidence.EvidenceReport.TimestampResult;
import io.trailproof.core.evidence.TokenChecker.TokenCheck;
import io.trailproof.core.evidence.TokenChecker.TokenVerdict;
import io.trailproof.core.merkle.ConsistencyCheck;
import io.trailproof.core.merkle.MerkleProofs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The check {@link EvidenceCheck#TIMESTAMPS}: for each entry of {@code timestamps}, that the stamped
 * tree is an earlier state of the package's (its RFC 9162 consistency proof), and, through the
 * {@link TokenChecker}, the RFC 3161 token itself; and which of the package's events the stamped tree
 * covers. Fed one entry at a time by the reader, after the events.
 */
final class TimestampsChecker implements PackageReader.TimestampSink {

    private static final String CONSISTENCY = "consistency";

    private final PackageHeader header;
    private final EventLeaves leaves;
    private final TokenChecker tokens;
    private final List<TimestampResult> timestamps = new ArrayList<>();

    TimestampsChecker(PackageHeader header, EventLeaves leaves, TokenChecker tokens) {
        this.header = header;
        this.leaves = leaves;
        this.tokens = tokens;
    }

    @Override
    public void timestamp(JsonNode entry) {
        timestamps.add(check(entry));
    }

    /** One result per readable entry, in the package's order. */
    List<TimestampResult> timestamps() {
        return List.copyOf(timestamps);
    }

    CheckResult result() {
        if (timestamps.isEmpty()) {
            return CheckResult.skipped(EvidenceCheck.TIMESTAMPS,
                    "the package has no timestamps: these events are not yet timestamped, so no time is proven");
        }
        Tally t = new Tally(EvidenceCheck.TIMESTAMPS);
        boolean skipped = false;
        for (TimestampResult r : timestamps) {
            List<TokenCheck> all = new ArrayList<>(r.token().checks());
            all.add(0, r.consistency());
            for (TokenCheck c : all) {
                if (c.outcome() == Outcome.FAILED) {
                    t.fail(null, null, c.expected(), c.actual(), "timestamp " + r.id() + ", check " + c.name()
                            + ": " + c.detail());
                } else if (c.outcome() == Outcome.SKIPPED) {
                    skipped = true;
                }
            }
        }
        if (!t.failed() && skipped) {
            return CheckResult.skipped(EvidenceCheck.TIMESTAMPS, "the trees of " + timestamps.size()
                    + " timestamp(s) are consistent with the package's, but their tokens were not checked, "
                    + "so no time is proven");
        }
        return t.result(timestamps.size() + " timestamp(s) verified");
    }

    private TimestampResult check(JsonNode entry) {
        Long stampedSize = whole(entry, TREE_SIZE);
        byte[] stampedRoot = hash(entry.get(MERKLE_ROOT));
        TokenCheck consistency = consistency(entry, stampedSize, stampedRoot);
        TokenVerdict token;
        try {
            token = tokens.check(entry);
        } catch (RuntimeException e) {
            token = new TokenVerdict(List.of(new TokenCheck("token", Outcome.FAILED, "a readable RFC 3161 token",
                    e.getMessage(), "the timestamp token cannot be read")), null, null);
        }
        Long covered = null;
        if (stampedSize != null) {
            for (int i = 0; i < leaves.size(); i++) {
                if (leaves.readable(i) && leaves.logIndex(i) < stampedSize) {
                    covered = leaves.sequence(i);
                }
            }
        }
        return new TimestampResult(text(entry, "id"), token.tsa() != null ? token.tsa() : text(entry, "tsa"),
                token.genTime() != null ? token.genTime() : text(entry, "timestamp"),
                stampedSize == null ? -1 : stampedSize, stampedRoot == null ? null : hex(stampedRoot), covered,
                consistency, token);
    }

    /** Whether the stamped tree is an earlier state of the package's tree. */
    private TokenCheck consistency(JsonNode entry, Long stampedSize, byte[] stampedRoot) {
        byte[] root = header.merkleRoot();
        Long treeSize = header.treeSize();
        JsonNode cp = entry.get(CONSISTENCY_PROOF);
        Long from = whole(cp, FROM);
        Long to = whole(cp, TO);
        List<byte[]> path = hashes(cp == null ? null : cp.get(PROOF));
        if (stampedSize == null || stampedRoot == null || from == null || to == null || path == null
                || root == null || treeSize == null) {
            return new TokenCheck(CONSISTENCY, Outcome.FAILED, "tree_size, merkle_root and a "
                    + "consistency_proof {from, to, proof}", String.valueOf(cp),
                    "the timestamp entry lacks what ties it to the package's tree");
        }
        if (!from.equals(stampedSize) || !to.equals(treeSize)) {
            return new TokenCheck(CONSISTENCY, Outcome.FAILED, "from " + stampedSize + " to " + treeSize,
                    "from " + from + " to " + to, "the consistency proof is not between the stamped tree and the "
                    + "package's tree");
        }
        ConsistencyCheck c = MerkleProofs.checkConsistency(stampedSize, treeSize, stampedRoot, root, path);
        if (c.valid()) {
            return new TokenCheck(CONSISTENCY, Outcome.PASSED, null, null, "the package's tree of "
                    + treeSize + " events extends the stamped tree of " + stampedSize + " events");
        }
        boolean oldRootWrong = c.computedRootM() != null && !Arrays.equals(c.computedRootM(), stampedRoot);
        return new TokenCheck(CONSISTENCY, Outcome.FAILED,
                hex(oldRootWrong ? stampedRoot : root),
                c.computedRootN() == null ? c.reason() : hex(oldRootWrong ? c.computedRootM() : c.computedRootN()),
                "the stamped tree is not an earlier state of the package's tree: " + c.reason());
    }
}
