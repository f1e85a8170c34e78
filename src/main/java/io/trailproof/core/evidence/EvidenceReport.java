package io.trailproof.core.evidence;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What offline verification of an evidence package found: the verdict, what the package states
 * (agent, sequences, root, tree size), each check with its result, and each timestamp with what it
 * proves. {@link EvidenceReportWriter} turns it into the text a person reads and the JSON a script
 * reads.
 *
 * <p>The stated values are copied from the package; they are proven only when the verdict is
 * {@link Verdict#VALID}.
 *
 * @param verdict        valid, invalid (a check failed) or unreadable (not a readable package)
 * @param problem        why it is unreadable, or the first failed check's sentence; null when valid
 * @param agentId        the chain's agent, or null when the package does not say
 * @param since          the window's start as requested (inclusive), or null
 * @param until          the window's end as requested (exclusive), or null
 * @param exportedAt     when the service says it wrote the package (stated, not proven)
 * @param firstSequence  the first event's sequence, or null without events
 * @param lastSequence   the last event's sequence, or null without events
 * @param eventCount     the number of events in the package
 * @param merkleRoot     the stated root of the log's tree
 * @param treeSize       the stated size of that tree
 * @param anchorHash     the {@code prev_hash} the first event links to
 * @param checks         every check of {@link EvidenceCheck}, in its order
 * @param timestamps     one result per {@code timestamps} entry
 * @param erasures       one line per erasure that covers events of the package (empty without erased events)
 */
public record EvidenceReport(Verdict verdict, String problem, String agentId, String since, String until,
                             String exportedAt, Long firstSequence, Long lastSequence, long eventCount,
                             String merkleRoot, Long treeSize, String anchorHash, List<CheckResult> checks,
                             List<TimestampResult> timestamps, List<ErasureSummary> erasures) {

    public enum Verdict {
        VALID, INVALID, UNREADABLE;

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** True only when every check passed or did not apply. */
    public boolean valid() {
        return verdict == Verdict.VALID;
    }

    /** The first failed check, in report order. */
    public Optional<CheckResult> firstFailure() {
        return checks.stream().filter(CheckResult::failed).findFirst();
    }

    /** The result of one check. */
    public Optional<CheckResult> check(EvidenceCheck check) {
        return checks.stream().filter(c -> c.check() == check).findFirst();
    }

    /**
     * An erasure that covers events of the package (src/site/evidence-format.md#erasures): the
     * erasure event's id, when it was recorded, its reason, how many of the package's events it
     * erased, and its log index.
     */
    public record ErasureSummary(String erasureId, String at, String reason, long events, long logIndex) {
    }

    /**
     * One {@code timestamps} entry: what it covers and whether it holds.
     *
     * @param id                     the timestamp record's id
     * @param tsa                    who signed the token
     * @param genTime                the token's time
     * @param treeSize               the size of the stamped tree
     * @param merkleRoot             the stamped root
     * @param coveredThroughSequence the last event of the package inside the stamped tree, or null
     *                               when the stamped tree holds none of them
     * @param consistency            the RFC 9162 consistency of the stamped tree with the package's
     * @param token                  the token's own checks
     */
    public record TimestampResult(String id, String tsa, String genTime, long treeSize, String merkleRoot,
                                  Long coveredThroughSequence, TokenChecker.TokenCheck consistency,
                                  TokenChecker.TokenVerdict token) {

        /** The token and the consistency proof all passed: the covered events existed by {@code genTime}. */
        public boolean proven() {
            return consistency.outcome() == CheckResult.Outcome.PASSED && token.allPassed();
        }
    }
}
