package io.trailproof.core.evidence;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.evidence.EvidenceReport.TimestampResult;
import io.trailproof.core.evidence.EvidenceReport.Verdict;
import io.trailproof.core.evidence.TokenChecker.TokenCheck;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Writes an {@link EvidenceReport} for a person who is not a cryptographer (what was proven, then
 * every check with its result and, on failure, the event and the expected and actual values) and
 * the same content as JSON for scripts. Both carry the same sentences, from {@link #statements}.
 */
public final class EvidenceReportWriter {
    private EvidenceReportWriter() {}

    private static final String INDENT = " ".repeat(25);

    /** The sentences that say what the package proves, and what it does not. */
    public static List<String> statements(EvidenceReport r) {
        List<String> out = new ArrayList<>();
        if (r.verdict() == Verdict.UNREADABLE) {
            out.add("Nothing is proven: " + r.problem() + ".");
            return out;
        }
        if (r.verdict() == Verdict.INVALID) {
            out.add("Nothing in this package can be relied on: " + r.problem() + ".");
            return out;
        }
        boolean slice = r.since() != null || r.until() != null;
        if (r.eventCount() == 0) {
            out.add("The package contains no events: agent " + r.agentId() + " had no events"
                    + (slice ? " with a timestamp in the window" : "") + " in the log of " + r.treeSize()
                    + " events with root " + r.merkleRoot() + " (as the service states; an empty package proves no event).");
            return out;
        }
        out.add(capitalized(range(r.firstSequence(), r.lastSequence())) + " of agent " + r.agentId() + " ("
                + count(r.eventCount()) + ") " + (r.eventCount() == 1 ? "is exactly as it was" : "are exactly as they were")
                + " recorded, " + (r.eventCount() == 1 ? "" : "follow each other without gaps ")
                + "in the agent's chain" + (r.firstSequence() > 1 ? " (linked to the hash " + r.anchorHash()
                + " of the event before " + (r.eventCount() == 1 ? "it" : "them") + ")" : "") + ", and "
                + (r.eventCount() == 1 ? "is" : "are") + " included in the log whose Merkle tree of "
                + r.treeSize() + " events has the root " + r.merkleRoot()
                + (r.erasures().isEmpty() ? "" : ", except the content of the erased events below") + ".");
        for (EvidenceReport.ErasureSummary e : r.erasures()) {
            out.add(erasedLine(e) + ": their content was removed by that erasure, itself an event of this log (log "
                    + "index " + e.logIndex() + ") included in the same tree; their hash, sequence, links and "
                    + "inclusion are as committed, their other fields are shown as stored and are not proven.");
        }
        Long stampedThrough = null;
        // The earliest proven time for each prefix of the events: a timestamp earns a sentence only
        // when it covers more events than every timestamp with an earlier (or equal) time.
        List<TimestampResult> proven = r.timestamps().stream().filter(TimestampResult::proven)
                .sorted(Comparator.comparing((TimestampResult t) -> instant(t.genTime()))).toList();
        for (TimestampResult t : proven) {
            Long covered = t.coveredThroughSequence();
            if (covered != null && (stampedThrough == null || covered > stampedThrough)) {
                out.add(capitalized(span(r.firstSequence(), covered)) + " of agent " + r.agentId()
                        + " existed no later than " + t.genTime() + " (TSA " + t.tsa() + "), proven by timestamp "
                        + t.id() + " of the log's first " + t.treeSize() + " events.");
                stampedThrough = covered;
            }
        }
        if (stampedThrough == null) {
            if (r.timestamps().isEmpty()) {
                out.add("Time is not proven: these events are not yet timestamped. "
                        + "The package proves what the log contains, not when it existed.");
            } else if (proven.isEmpty()) {
                out.add("Time is not proven: no timestamp of this package could be verified. "
                        + "The package proves what the log contains, not when it existed.");
            } else {
                long widest = proven.stream().mapToLong(TimestampResult::treeSize).max().orElseThrow();
                out.add("Time is not proven: " + span(r.firstSequence(), r.lastSequence()) + " of agent "
                        + r.agentId() + (r.eventCount() == 1 ? " is" : " are") + " not yet timestamped (the latest "
                        + "timestamp covers the log's first " + widest + " events, which do not include "
                        + (r.eventCount() == 1 ? "it" : "them") + "). The package proves what the log contains, "
                        + "not when it existed.");
            }
        } else if (stampedThrough < r.lastSequence()) {
            out.add(capitalized(span(stampedThrough + 1, r.lastSequence())) + " of agent " + r.agentId()
                    + (stampedThrough + 1 == r.lastSequence() ? " is" : " are") + " not yet timestamped: no "
                    + "timestamp in the package covers " + (stampedThrough + 1 == r.lastSequence() ? "it" : "them")
                    + ", so no time is proven for " + (stampedThrough + 1 == r.lastSequence() ? "it." : "them."));
        }
        out.add("Not proven: that agent " + r.agentId() + " has no events after sequence " + r.lastSequence()
                + (r.firstSequence() > 1 ? " or before sequence " + r.firstSequence() : "")
                + "; a package proves the events it contains.");
        return out;
    }

    /** "2 events erased (erasure ID at TIME: REASON)" */
    public static String erasedLine(EvidenceReport.ErasureSummary e) {
        return count(e.events()) + " erased (erasure " + e.erasureId() + " at " + e.at() + ": " + e.reason() + ")";
    }

    /** The human-readable report. */
    public static String text(EvidenceReport r) {
        StringBuilder b = new StringBuilder();
        b.append("Evidence package: ").append(r.verdict().name()).append('\n');
        if (r.verdict() == Verdict.UNREADABLE) {
            b.append('\n').append(r.problem()).append('\n');
            return b.toString();
        }
        b.append('\n').append(r.valid() ? "What was proven" : "What the package states (NOT proven)").append('\n');
        row(b, "Agent", r.agentId());
        row(b, "Events", r.eventCount() == 0 ? "none"
                : count(r.eventCount()) + " (" + (r.eventCount() == 1 ? "sequence " + r.firstSequence()
                : "sequences " + r.firstSequence() + " to " + r.lastSequence()) + ")");
        if (r.since() != null || r.until() != null) {
            row(b, "Window", ("timestamp " + (r.since() == null ? "" : "from " + r.since() + " (inclusive) ")
                    + (r.until() == null ? "" : "until " + r.until() + " (exclusive)")).trim());
        }
        if (r.firstSequence() != null && r.firstSequence() > 1) {
            row(b, "Anchor", r.anchorHash() + " (hash of sequence " + (r.firstSequence() - 1) + ")");
        }
        for (EvidenceReport.ErasureSummary e : r.erasures()) {
            row(b, "Erased", erasedLine(e));
        }
        row(b, "Merkle root", r.merkleRoot());
        row(b, "Tree size", r.treeSize() == null ? null : r.treeSize() + " events in the log (all agents)");
        row(b, "Exported at", r.exportedAt() == null ? null : r.exportedAt() + " (as stated by the service)");
        for (TimestampResult t : r.timestamps()) {
            row(b, "Timestamp", t.genTime() + " by " + t.tsa() + " over tree size " + t.treeSize()
                    + (r.firstSequence() == null ? "" : t.coveredThroughSequence() == null ? ", covering none of these events"
                    : ", covering " + span(r.firstSequence(), t.coveredThroughSequence()))
                    + (t.proven() ? "" : " (not verified)"));
        }
        b.append('\n');
        for (String s : statements(r)) {
            b.append("  ").append(s).append('\n');
        }
        b.append("\nChecks\n");
        for (CheckResult c : r.checks()) {
            String mark = switch (c.outcome()) {
                case PASSED -> "PASS";
                case FAILED -> "FAIL";
                case SKIPPED -> "SKIP";
            };
            b.append("  ").append(mark).append("  ").append(pad(c.check().id(), 17)).append(c.check().meaning()).append('\n');
            if (c.failed()) {
                if (c.sequence() != null || c.eventId() != null) {
                    b.append(INDENT).append("at event: ").append(c.sequence() == null ? "" : "sequence " + c.sequence())
                            .append(c.eventId() == null ? "" : (c.sequence() == null ? "" : ", ") + "id " + c.eventId())
                            .append('\n');
                }
                b.append(INDENT).append(c.detail()).append('\n');
                b.append(INDENT).append("expected: ").append(c.expected()).append('\n');
                b.append(INDENT).append("actual:   ").append(c.actual()).append('\n');
            } else if (c.detail() != null && !c.detail().isEmpty()) {
                b.append(INDENT).append(c.detail()).append('\n');
            }
        }
        for (TimestampResult t : r.timestamps()) {
            b.append("\nTimestamp ").append(t.id()).append(" (").append(t.tsa()).append(", ").append(t.genTime())
                    .append(")\n");
            List<TokenCheck> all = new ArrayList<>();
            all.add(t.consistency());
            all.addAll(t.token().checks());
            for (TokenCheck c : all) {
                b.append("  ").append(c.outcome().name(), 0, 4).append("  ").append(pad(c.name(), 17))
                        .append(c.detail() == null ? "" : c.detail()).append('\n');
                if (c.outcome() == CheckResult.Outcome.FAILED) {
                    b.append(INDENT).append("expected: ").append(c.expected()).append('\n');
                    b.append(INDENT).append("actual:   ").append(c.actual()).append('\n');
                }
            }
        }
        return b.toString();
    }

    /** The same report as JSON. */
    public static ObjectNode json(EvidenceReport r) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode o = f.objectNode();
        o.put("verdict", r.verdict().id());
        o.put("valid", r.valid());
        o.put("problem", r.problem());
        o.put("agent_id", r.agentId());
        o.put("since", r.since());
        o.put("until", r.until());
        o.put("exported_at", r.exportedAt());
        o.put("first_sequence", r.firstSequence());
        o.put("last_sequence", r.lastSequence());
        o.put("event_count", r.eventCount());
        o.put("merkle_root", r.merkleRoot());
        o.put("tree_size", r.treeSize());
        o.put("anchor_hash", r.anchorHash());
        ArrayNode proven = o.putArray("statements");
        statements(r).forEach(proven::add);
        ArrayNode checks = o.putArray("checks");
        for (CheckResult c : r.checks()) {
            ObjectNode n = checks.addObject();
            n.put("check", c.check().id());
            n.put("outcome", c.outcome().id());
            n.put("meaning", c.check().meaning());
            n.put("detail", c.detail());
            n.put("sequence", c.sequence());
            n.put("event_id", c.eventId());
            n.put("expected", c.expected());
            n.put("actual", c.actual());
            n.put("failures", c.failures());
        }
        ArrayNode stamps = o.putArray("timestamps");
        for (TimestampResult t : r.timestamps()) {
            ObjectNode n = stamps.addObject();
            n.put("id", t.id());
            n.put("tsa", t.tsa());
            n.put("time", t.genTime());
            n.put("tree_size", t.treeSize());
            n.put("merkle_root", t.merkleRoot());
            n.put("covered_through_sequence", t.coveredThroughSequence());
            n.put("proven", t.proven());
            ArrayNode tc = n.putArray("checks");
            List<TokenCheck> all = new ArrayList<>();
            all.add(t.consistency());
            all.addAll(t.token().checks());
            for (TokenCheck c : all) {
                tc.addObject().put("check", c.name()).put("outcome", c.outcome().id()).put("detail", c.detail())
                        .put("expected", c.expected()).put("actual", c.actual());
            }
        }
        if (!r.erasures().isEmpty()) {
            ArrayNode erasures = o.putArray("erasures");
            for (EvidenceReport.ErasureSummary e : r.erasures()) {
                erasures.addObject().put("erasure_id", e.erasureId()).put("at", e.at()).put("reason", e.reason())
                        .put("events", e.events()).put("log_index", e.logIndex());
            }
        }
        return o;
    }

    /** "event 5" or "events 1 to 150". */
    private static String range(long first, long last) {
        return first == last ? "event " + first : "events " + first + " to " + last;
    }

    /** "event 5" or "events 1..150", as src/site/evidence-format.md words what a timestamp proves. */
    private static String span(long first, long last) {
        return first == last ? "event " + first : "events " + first + ".." + last;
    }

    /** A time to order timestamps by; one that cannot be read sorts last. */
    private static Instant instant(String rfc3339) {
        try {
            return rfc3339 == null ? Instant.MAX : Instant.parse(rfc3339);
        } catch (DateTimeParseException e) {
            return Instant.MAX;
        }
    }

    private static String count(long n) {
        return n == 1 ? "1 event" : n + " events";
    }

    private static String capitalized(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static void row(StringBuilder b, String label, String value) {
        b.append("  ").append(pad(label, 14)).append(value == null ? "(not stated)" : value).append('\n');
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s + " " : s + " ".repeat(width - s.length());
    }
}
