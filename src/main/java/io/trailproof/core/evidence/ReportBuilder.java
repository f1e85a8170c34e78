package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.EvidenceFormat.*;
import static io.trailproof.core.evidence.FormatValues.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.evidence.EvidenceReport.TimestampResult;
import io.trailproof.core.evidence.EvidenceReport.Verdict;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Assembles the {@link EvidenceReport} from the checks' results: every check in the order of
 * {@link EvidenceCheck}, the verdict (invalid when any check failed), the first failure's sentence,
 * and the values the package states. It judges nothing itself; {@link EvidenceReportWriter} renders
 * what it builds.
 */
final class ReportBuilder {

    private final Map<EvidenceCheck, CheckResult> results = new EnumMap<>(EvidenceCheck.class);

    /** Adds one check's result (the last one given for a check counts). */
    ReportBuilder check(CheckResult result) {
        results.put(result.check(), result);
        return this;
    }

    /** The report of a document that is not a readable package. */
    static EvidenceReport unreadable(String why) {
        return new EvidenceReport(Verdict.UNREADABLE, why, null, null, null, null, null, null, 0, null, null, null,
                List.of(), List.of(), List.of());
    }

    /**
     * The report of a readable package, once every check has a result.
     *
     * @param first      the first readable event, or null
     * @param last       the last readable event, or null
     * @param eventCount the number of events in the package, readable or not
     */
    EvidenceReport build(PackageHeader header, StoredEvent first, StoredEvent last, long eventCount,
                         List<TimestampResult> timestamps, List<EvidenceReport.ErasureSummary> erasures) {
        if (results.size() != EvidenceCheck.values().length) {
            throw new IllegalStateException("the report lacks a check: it has only " + results.keySet());
        }
        List<CheckResult> checks = new ArrayList<>(results.values());
        Optional<CheckResult> failure = checks.stream().filter(CheckResult::failed).findFirst();
        JsonNode filter = header.filter();
        return new EvidenceReport(failure.isPresent() ? Verdict.INVALID : Verdict.VALID,
                failure.map(ReportBuilder::sentence).orElse(null),
                first != null ? first.agentId() : text(header.chain(), AGENT_ID),
                text(filter, SINCE), text(filter, UNTIL), text(header.get(EXPORTED_AT)),
                first == null ? null : first.sequence(), last == null ? null : last.sequence(),
                eventCount, text(header.get(MERKLE_ROOT)), header.treeSize(),
                text(header.chain(), ANCHOR_HASH), checks, timestamps, erasures);
    }

    /** "inclusion_proofs failed at sequence 7: ..." */
    private static String sentence(CheckResult c) {
        String at = c.sequence() != null ? " at sequence " + c.sequence() : "";
        return c.check().id() + " failed" + at + ": " + c.detail();
    }
}
