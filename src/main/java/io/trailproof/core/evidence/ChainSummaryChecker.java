package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.EvidenceFormat.*;
import static io.trailproof.core.evidence.FormatValues.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.StoredEvent;

/**
 * The check {@link EvidenceCheck#CHAIN_SUMMARY}: the package's {@code chain} member names the exported
 * agent and states the number of events and the first and last sequence the package holds, and the
 * events are that agent's.
 */
final class ChainSummaryChecker {

    private final PackageHeader header;
    private final Tally summary = new Tally(EvidenceCheck.CHAIN_SUMMARY);

    ChainSummaryChecker(PackageHeader header) {
        this.header = header;
    }

    /**
     * @param first      the first readable event, or null
     * @param last       the last readable event, or null
     * @param eventCount the number of events in the package, readable or not
     */
    CheckResult result(StoredEvent first, StoredEvent last, long eventCount) {
        JsonNode chain = header.chain();
        if (chain == null || !chain.isObject()) {
            return CheckResult.skipped(EvidenceCheck.CHAIN_SUMMARY, "the package has no readable chain summary");
        }
        String filterAgent = text(header.filter(), AGENT_ID);
        String stated = text(chain, AGENT_ID);
        if (stated == null || !stated.equals(filterAgent)) {
            summary.fail(null, null, "chain.agent_id " + filterAgent + " (the exported agent)",
                    "chain.agent_id " + stated, "the chain summary names another agent than the export");
        }
        if (first != null && !first.agentId().equals(filterAgent)) {
            summary.fail(first.sequence(), first.id(), "events of agent " + filterAgent,
                    "events of agent " + first.agentId(), "the events belong to another agent than the export");
        }
        compare(chain, LENGTH, eventCount, "the number of events in the package");
        compare(chain, FIRST_SEQUENCE, first == null ? null : first.sequence(), "the first event's sequence");
        compare(chain, LAST_SEQUENCE, last == null ? null : last.sequence(), "the last event's sequence");
        return summary.result("agent " + filterAgent + ", " + eventCount + " events"
                + (first == null ? "" : ", sequences " + first.sequence() + " to " + last.sequence()));
    }

    private void compare(JsonNode chain, String member, Long actual, String meaning) {
        JsonNode v = chain.get(member);
        Long stated = whole(v);
        boolean statedNull = v == null || v.isNull();
        boolean ok = actual == null ? statedNull : actual.equals(stated);
        if (!ok) {
            summary.fail(null, null, "chain." + member + " " + actual, "chain." + member + " "
                    + (v == null ? "missing" : v.toString()), "chain." + member + " is not " + meaning);
        }
    }
}
