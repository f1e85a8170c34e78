package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.EvidenceFormat.*;
import static io.trailproof.core.evidence.FormatValues.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.evidence.CheckResult.Outcome;
import io.trailproof.core.evidence.EvidenceReport.TimestampResult;
import io.trailproof.core.evidence.EvidenceReport.Verdict;
import io.trailproof.core.evidence.TokenChecker.TokenCheck;
import io.trailproof.core.evidence.TokenChecker.TokenVerdict;
import io.trailproof.core.merkle.ConsistencyCheck;
import io.trailproof.core.merkle.InclusionCheck;
import io.trailproof.core.merkle.MerkleProofs;
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
    private static final class Run implements PackageReader.EventSink, PackageReader.ProofSink,
            PackageReader.TimestampSink {
        private final TokenChecker tokens;
        private final PackageHeader header = new PackageHeader();
        private final Tally format = new Tally(EvidenceCheck.FORMAT);
        private final Tally summary = new Tally(EvidenceCheck.CHAIN_SUMMARY);
        private final Tally window = new Tally(EvidenceCheck.WINDOW);
        private final Tally inclusion = new Tally(EvidenceCheck.INCLUSION_PROOFS);
        private final EventLeaves leaves = new EventLeaves();
        private final List<TimestampResult> timestamps = new ArrayList<>();

        private int proofCount;
        private final ChainChecker chain = new ChainChecker(header, format);

        Run(TokenChecker tokens) {
            this.tokens = tokens;
        }

        EvidenceReport verify(InputStream in) {
            try {
                new PackageReader(header, format, this, this, this).read(in);
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

        // ------------------------------------------------------------ proofs

        @Override
        public void proof(JsonNode item) {
            if (proofCount < leaves.size()) {
                proof(proofCount, item, hash(header.get(MERKLE_ROOT)), whole(header.get(TREE_SIZE)));
            }
            proofCount++;
        }

        @Override
        public void endOfProofs() {
            int k = proofCount;
            for (int i = k; i < leaves.size(); i++) {
                inclusion.fail(leaves.sequence(i), leaves.id(i), "an inclusion proof for this event", "none",
                        "the event has no inclusion proof (there is one per event, in event order)");
            }
            if (k > leaves.size()) {
                inclusion.fail(null, null, leaves.size() + " proofs (one per event)", k + " proofs",
                        "there are more proofs than events: an event may have been removed");
            }
        }

        private void proof(int k, JsonNode item, byte[] root, Long treeSize) {
            Long seq = leaves.sequence(k);
            String id = leaves.id(k);
            JsonNode proof = item == null ? null : item.get(PROOF);
            String eventId = text(item, EVENT_ID);
            byte[] leafHash = hash(proof == null ? null : proof.get(LEAF_HASH));
            Long leafIndex = whole(proof, LEAF_INDEX);
            Long proofTreeSize = whole(proof, TREE_SIZE);
            List<byte[]> siblings = hashes(proof == null ? null : proof.get(SIBLINGS));
            if (eventId == null || leafHash == null || leafIndex == null || proofTreeSize == null || siblings == null) {
                inclusion.fail(seq, id, "a proof with event_id, leaf_hash, leaf_index, siblings and tree_size",
                        item == null ? "unreadable" : String.valueOf(item),
                        "the inclusion proof of this event is incomplete or malformed");
                return;
            }
            if (!leaves.idEquals(k, eventId)) {
                inclusion.fail(seq, id, "a proof of event " + id, "a proof of event " + eventId,
                        "the proofs are not those of the events: one is missing, added or out of order");
                return;
            }
            if (!leaves.readable(k)) {
                inclusion.fail(seq, id, "a readable event", "unreadable", "the event cannot be read, so it cannot be proven");
                return;
            }
            byte[] leaf = leaves.leaf(k);
            if (!java.util.Arrays.equals(leaf, leafHash)) {
                inclusion.fail(seq, id, hex(leaf), hex(leafHash),
                        "the proof's leaf_hash is not the RFC 9162 leaf hash of the event's hash");
                return;
            }
            if (leafIndex != leaves.logIndex(k)) {
                inclusion.fail(seq, id, "leaf_index " + leaves.logIndex(k), "leaf_index " + leafIndex,
                        "the proof is for another position in the log than the event's log_index");
                return;
            }
            if (root == null || treeSize == null) {
                return; // a format failure already says the package has no usable root or size
            }
            if (!proofTreeSize.equals(treeSize)) {
                inclusion.fail(seq, id, "tree_size " + treeSize, "tree_size " + proofTreeSize,
                        "the proof is for a tree of another size than the package's tree_size");
                return;
            }
            InclusionCheck c = MerkleProofs.checkInclusion(leaf, leaves.logIndex(k), treeSize, siblings, root);
            if (!c.valid()) {
                inclusion.fail(seq, id, hex(root), c.computedRoot() == null ? c.reason() : hex(c.computedRoot()),
                        c.computedRoot() == null ? "the inclusion proof does not fit a tree of " + treeSize
                                + " events: " + c.reason()
                                : "the inclusion proof leads to another root than the package's merkle_root");
            }
        }

        // ------------------------------------------------------------ timestamps

        @Override
        public void timestamp(JsonNode entry) {
            timestamps.add(result(entry));
        }

        private TimestampResult result(JsonNode entry) {
            Long stampedSize = whole(entry, TREE_SIZE);
            byte[] stampedRoot = hash(entry.get(MERKLE_ROOT));
            byte[] root = hash(header.get(MERKLE_ROOT));
            Long treeSize = whole(header.get(TREE_SIZE));
            JsonNode cp = entry.get(CONSISTENCY_PROOF);
            Long from = whole(cp, FROM);
            Long to = whole(cp, TO);
            List<byte[]> path = hashes(cp == null ? null : cp.get(PROOF));
            TokenCheck consistency;
            if (stampedSize == null || stampedRoot == null || from == null || to == null || path == null
                    || root == null || treeSize == null) {
                consistency = new TokenCheck("consistency", Outcome.FAILED, "tree_size, merkle_root and a "
                        + "consistency_proof {from, to, proof}", String.valueOf(cp),
                        "the timestamp entry lacks what ties it to the package's tree");
            } else if (!from.equals(stampedSize) || !to.equals(treeSize)) {
                consistency = new TokenCheck("consistency", Outcome.FAILED, "from " + stampedSize + " to " + treeSize,
                        "from " + from + " to " + to, "the consistency proof is not between the stamped tree and the "
                        + "package's tree");
            } else {
                ConsistencyCheck c = MerkleProofs.checkConsistency(stampedSize, treeSize, stampedRoot, root, path);
                if (c.valid()) {
                    consistency = new TokenCheck("consistency", Outcome.PASSED, null, null, "the package's tree of "
                            + treeSize + " events extends the stamped tree of " + stampedSize + " events");
                } else {
                    boolean oldRootWrong = c.computedRootM() != null && !java.util.Arrays.equals(c.computedRootM(), stampedRoot);
                    consistency = new TokenCheck("consistency", Outcome.FAILED,
                            hex(oldRootWrong ? stampedRoot : root),
                            c.computedRootN() == null ? c.reason() : hex(oldRootWrong ? c.computedRootM() : c.computedRootN()),
                            "the stamped tree is not an earlier state of the package's tree: " + c.reason());
                }
            }
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
            results.put(EvidenceCheck.INCLUSION_PROOFS, leaves.size() == 0 && !inclusion.failed()
                    ? CheckResult.skipped(EvidenceCheck.INCLUSION_PROOFS, "the package contains no events")
                    : inclusion.result(leaves.size() + " inclusion proofs lead to the root "
                    + text(header.get(MERKLE_ROOT)) + " of the tree of " + whole(header.get(TREE_SIZE)) + " events"));
            results.put(EvidenceCheck.TIMESTAMPS, timestampsResult());
            List<CheckResult> checks = new ArrayList<>(results.values());
            Optional<CheckResult> failure = checks.stream().filter(CheckResult::failed).findFirst();
            JsonNode filter = header.get(FILTER);
            return new EvidenceReport(failure.isPresent() ? Verdict.INVALID : Verdict.VALID,
                    failure.map(Run::sentence).orElse(null),
                    chain.firstEvent() != null ? chain.firstEvent().agentId() : text(header.chain(), AGENT_ID),
                    text(filter, SINCE), text(filter, UNTIL), text(header.get(EXPORTED_AT)),
                    chain.firstEvent() == null ? null : chain.firstEvent().sequence(), chain.lastEvent() == null ? null : chain.lastEvent().sequence(),
                    leaves.size(), text(header.get(MERKLE_ROOT)), whole(header.get(TREE_SIZE)),
                    text(header.chain(), ANCHOR_HASH), checks, List.copyOf(timestamps));
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

        private CheckResult timestampsResult() {
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
    }
}
