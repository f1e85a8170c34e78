package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.EvidenceFormat.*;
import static io.trailproof.core.evidence.FormatValues.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.evidence.EvidenceReport.Verdict;
import io.trailproof.core.merkle.Rfc9162;

import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Verifies an evidence package offline (CONTRACT 5): needs nothing but the document and, for
 * timestamp tokens, a {@link TokenChecker}. It recomputes every event hash, checks that
 * sequences are consecutive and every {@code prev_hash} links (the first to {@code anchor_hash}),
 * checks every inclusion proof against {@code merkle_root}, and for each timestamp the consistency
 * of its tree with the package's and, through the token verifier, the token itself.
 *
 * <p>Streams: each event is read, checked and dropped, keeping about 64 bytes of it until its proof
 * is matched, so a package of any size verifies in memory proportional to that, not to its text.
 * This holds when the members come in the order the service writes them ({@link EvidenceFormat});
 * a package whose members were reordered still verifies, holding the out-of-order sections in memory.
 *
 * <p>Never throws for what the document holds: an unreadable or tampered package is a report with
 * verdict {@link Verdict#UNREADABLE} or {@link Verdict#INVALID}. Thread-safe; each call is independent.
 */
public final class EvidenceVerifier {

    private final TokenChecker tokens;

    /** A verifier without RFC 3161 support: timestamp tokens are reported as not checked. */
    public EvidenceVerifier() {
        this(TokenChecker.UNAVAILABLE);
    }

    public EvidenceVerifier(TokenChecker tokens) {
        this.tokens = tokens;
    }

    /**
     * Reads the package from {@code in} to its end and reports what it proves. The caller opened
     * the stream and closes it.
     */
    public EvidenceReport verify(InputStream in) {
        return new Run(tokens).verify(in);
    }

    /** One verification: everything read so far. */
    private static final class Run implements PackageReader.EventSink {
        private final PackageHeader header = new PackageHeader();
        private final Tally format = new Tally(EvidenceCheck.FORMAT);
        private final Tally summary = new Tally(EvidenceCheck.CHAIN_SUMMARY);
        private final Tally window = new Tally(EvidenceCheck.WINDOW);
        private final EventLeaves leaves = new EventLeaves();

        private final ChainChecker chain = new ChainChecker(header, format);
        private final InclusionProofChecker inclusion = new InclusionProofChecker(header, leaves);
        private final TimestampsChecker stamps;

        Run(TokenChecker tokens) {
            this.stamps = new TimestampsChecker(header, leaves, tokens);
        }

        EvidenceReport verify(InputStream in) {
            try {
                new PackageReader(header, format, this, inclusion, stamps).read(in);
            } catch (PackageReader.UnreadablePackage e) {
                return unreadable(e.getMessage());
            }
            return report();
        }

        // ------------------------------------------------------------ events

        @Override
        public void unreadableEvent(String why) {
            leaves.addUnreadable();
            chain.unreadableEvent(why);
        }

        @Override
        public void event(StoredEvent event) {
            leaves.add(event.id(), event.sequence(), event.logIndex(), Rfc9162.leafHash(event.hashBytes()));
            chain.event(event);
        }

        // ------------------------------------------------------------ the report

        private EvidenceReport unreadable(String why) {
            return new EvidenceReport(Verdict.UNREADABLE, why, null, null, null, null, null, null, 0, null, null, null,
                    List.of(), List.of());
        }

        private EvidenceReport report() {
            checkHeader();
            Map<EvidenceCheck, CheckResult> results = new EnumMap<>(EvidenceCheck.class);
            results.put(EvidenceCheck.FORMAT, format.result("a complete version " + VERSION_1_0 + " package"));
            chain.results(results);
            results.put(EvidenceCheck.CHAIN_SUMMARY, summaryResult());
            results.put(EvidenceCheck.WINDOW, windowResult());
            results.put(EvidenceCheck.INCLUSION_PROOFS, inclusion.result());
            results.put(EvidenceCheck.TIMESTAMPS, stamps.result());
            List<CheckResult> checks = new ArrayList<>(results.values());
            Optional<CheckResult> failure = checks.stream().filter(CheckResult::failed).findFirst();
            JsonNode filter = header.get(FILTER);
            return new EvidenceReport(failure.isPresent() ? Verdict.INVALID : Verdict.VALID,
                    failure.map(Run::sentence).orElse(null),
                    chain.firstEvent() != null ? chain.firstEvent().agentId() : text(header.chain(), AGENT_ID),
                    text(filter, SINCE), text(filter, UNTIL), text(header.get(EXPORTED_AT)),
                    chain.firstEvent() == null ? null : chain.firstEvent().sequence(), chain.lastEvent() == null ? null : chain.lastEvent().sequence(),
                    leaves.size(), text(header.get(MERKLE_ROOT)), whole(header.get(TREE_SIZE)),
                    text(header.chain(), ANCHOR_HASH), checks, stamps.timestamps());
        }

        private static String sentence(CheckResult c) {
            String at = c.sequence() != null ? " at sequence " + c.sequence() : "";
            return c.check().id() + " failed" + at + ": " + c.detail();
        }

        private void checkHeader() {
            expectText(HASH_ALGORITHM, SHA_256);
            expectText(CANONICALIZATION, RFC_8785);
            expectText(MERKLE_TREE, RFC_9162);
            if (!header.has(VERSION)) {
                missing(VERSION);
            }
            if (hash(header.get(MERKLE_ROOT)) == null) {
                missingOr(MERKLE_ROOT, "64 lowercase hex digits");
            }
            Long size = whole(header.get(TREE_SIZE));
            if (size == null || size < 0) {
                missingOr(TREE_SIZE, "a whole number");
            }
            JsonNode filter = header.get(FILTER);
            if (filter == null || !filter.isObject() || text(filter, AGENT_ID) == null) {
                missingOr(FILTER, "an object with agent_id, since and until");
            }
            for (String bound : new String[] {SINCE, UNTIL}) {
                String t = text(filter, bound);
                if (t != null && instant(t) == null) {
                    format.fail(null, null, "filter." + bound + " as an ISO 8601 date-time", t,
                            "the export window cannot be read");
                }
            }
            if (header.chain() == null || !header.chain().isObject()) {
                missingOr(CHAIN, "an object with agent_id, length, first_sequence, last_sequence and anchor_hash");
            }
            for (String name : new String[] {EVENTS, MERKLE_PROOFS, TIMESTAMPS}) {
                if (!header.seen(name)) {
                    missing(name);
                }
            }
        }

        private void expectText(String name, String value) {
            JsonNode v = header.get(name);
            if (v == null || !value.equals(v.textValue())) {
                format.fail(null, null, name + " \"" + value + "\"", v == null ? "missing" : v.toString(),
                        "the package says it was made with other algorithms than this version defines");
            }
        }

        private void missing(String name) {
            format.fail(null, null, "the member " + name, "missing", "the package lacks the member " + name);
        }

        private void missingOr(String name, String what) {
            JsonNode v = name.equals(CHAIN) ? header.chain() : header.get(name);
            format.fail(null, null, name + " as " + what, v == null ? "missing" : v.toString(),
                    "the member " + name + " is missing or malformed");
        }

        private CheckResult summaryResult() {
            if (header.chain() == null || !header.chain().isObject()) {
                return CheckResult.skipped(EvidenceCheck.CHAIN_SUMMARY, "the package has no readable chain summary");
            }
            String filterAgent = text(header.get(FILTER), AGENT_ID);
            String stated = text(header.chain(), AGENT_ID);
            if (stated == null || !stated.equals(filterAgent)) {
                summary.fail(null, null, "chain.agent_id " + filterAgent + " (the exported agent)",
                        "chain.agent_id " + stated, "the chain summary names another agent than the export");
            }
            if (chain.firstEvent() != null && !chain.firstEvent().agentId().equals(filterAgent)) {
                summary.fail(chain.firstEvent().sequence(), chain.firstEvent().id(), "events of agent " + filterAgent,
                        "events of agent " + chain.firstEvent().agentId(), "the events belong to another agent than the export");
            }
            compare(LENGTH, (long) leaves.size(), "the number of events in the package");
            compare(FIRST_SEQUENCE, chain.firstEvent() == null ? null : chain.firstEvent().sequence(), "the first event's sequence");
            compare(LAST_SEQUENCE, chain.lastEvent() == null ? null : chain.lastEvent().sequence(), "the last event's sequence");
            return summary.result("agent " + filterAgent + ", " + leaves.size() + " events"
                    + (chain.firstEvent() == null ? "" : ", sequences " + chain.firstEvent().sequence() + " to " + chain.lastEvent().sequence()));
        }

        private void compare(String member, Long actual, String meaning) {
            JsonNode v = header.chain().get(member);
            Long stated = whole(v);
            boolean statedNull = v == null || v.isNull();
            boolean ok = actual == null ? statedNull : actual.equals(stated);
            if (!ok) {
                summary.fail(null, null, "chain." + member + " " + actual, "chain." + member + " "
                        + (v == null ? "missing" : v.toString()), "chain." + member + " is not " + meaning);
            }
        }

        private CheckResult windowResult() {
            JsonNode filter = header.get(FILTER);
            Instant since = instant(text(filter, SINCE));
            Instant until = instant(text(filter, UNTIL));
            if (since == null && until == null) {
                return CheckResult.skipped(EvidenceCheck.WINDOW, "the whole chain was exported (no time window)");
            }
            if (chain.firstEvent() == null) {
                return CheckResult.skipped(EvidenceCheck.WINDOW, "the package contains no events");
            }
            for (StoredEvent e : new StoredEvent[] {chain.firstEvent(), chain.lastEvent()}) {
                Instant t = instant(e.timestamp());
                if (t == null || (since != null && t.isBefore(since)) || (until != null && !t.isBefore(until))) {
                    window.fail(e.sequence(), e.id(), "a timestamp in [" + (since == null ? "" : since) + ", "
                            + (until == null ? "" : until) + ")", e.timestamp(),
                            "the slice does not begin and end with events of the requested window");
                }
            }
            return window.result("the slice begins and ends with events whose timestamp is in the window");
        }
    }
}
