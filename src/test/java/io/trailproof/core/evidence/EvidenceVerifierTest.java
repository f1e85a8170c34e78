package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.PackageFixture.JSON;
import static io.trailproof.core.evidence.PackageFixture.verify;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.evidence.CheckResult.Outcome;
import io.trailproof.core.evidence.EvidenceReport.Verdict;
import io.trailproof.core.merkle.MerkleTree;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;

/** The offline verifier against packages built from src/site/evidence-format.md, intact and tampered in every listed way. */
class EvidenceVerifierTest {

    private final PackageFixture log;
    private final List<StoredEvent> a;

    EvidenceVerifierTest() throws Exception {
        log = new PackageFixture(new Random(42), 90, "a", "b", "c");
        a = log.chain("a");
    }

    /** A tampered copy of the package made by {@code change}. */
    private static ObjectNode tampered(ObjectNode pack, Consumer<ObjectNode> change) {
        ObjectNode copy = pack.deepCopy();
        change.accept(copy);
        return copy;
    }

    private static void assertFails(EvidenceReport r, EvidenceCheck check, Long sequence) {
        assertThat(r.verdict()).as(EvidenceReportWriter.text(r)).isEqualTo(Verdict.INVALID);
        CheckResult first = r.firstFailure().orElseThrow();
        assertThat(first.check()).as(EvidenceReportWriter.text(r)).isEqualTo(check);
        if (sequence != null) {
            assertThat(first.sequence()).isEqualTo(sequence);
        }
        assertThat(first.expected()).isNotNull();
        assertThat(first.actual()).isNotNull().isNotEqualTo(first.expected());
        assertThat(r.problem()).startsWith(check.id() + " failed");
    }

    private static ObjectNode event(ObjectNode pack, int i) {
        return (ObjectNode) pack.get("events").get(i);
    }

    private static ObjectNode proof(ObjectNode pack, int i) {
        return (ObjectNode) pack.get("merkle_proofs").get(i).get("proof");
    }

    @Test
    void aWholeChainAmongInterleavedAgentsIsValid() throws Exception {
        EvidenceReport r = verify(log.pack("a"));
        assertThat(r.verdict()).as(EvidenceReportWriter.text(r)).isEqualTo(Verdict.VALID);
        assertThat(r.agentId()).isEqualTo("a");
        assertThat(r.eventCount()).isEqualTo(a.size());
        assertThat(r.firstSequence()).isEqualTo(1);
        assertThat(r.lastSequence()).isEqualTo(a.size());
        assertThat(r.treeSize()).isEqualTo(90);
        assertThat(r.checks()).extracting(CheckResult::check).containsExactly(EvidenceCheck.values());
        assertThat(r.check(EvidenceCheck.TIMESTAMPS).orElseThrow().outcome()).isEqualTo(Outcome.SKIPPED);
        String text = EvidenceReportWriter.text(r);
        assertThat(text).contains("Evidence package: VALID", "Events 1 to " + a.size() + " of agent a",
                "not yet timestamped", "PASS  inclusion_proofs");
        assertThat(EvidenceReportWriter.json(r).get("statements").toString()).contains("not yet timestamped");
    }

    /** verify-export loads the JDK's trust store only for a package that holds a timestamp. */
    @Test
    void aPackageWithoutTimestampsNeverAsksForTheTrustAnchors() throws Exception {
        Rfc3161TokenChecker anchorsRefused = new Rfc3161TokenChecker(() -> {
            throw new AssertionError("the trust anchors were asked for");
        }, null);
        EvidenceReport r = new EvidenceVerifier(anchorsRefused)
                .verify(new ByteArrayInputStream(JSON.writeValueAsBytes(log.pack("a"))));
        assertThat(r.verdict()).as(EvidenceReportWriter.text(r)).isEqualTo(Verdict.VALID);
    }

    @Test
    void aSliceVerifiesOnItsOwnFromItsAnchor() throws Exception {
        int from = 3;
        int to = a.size() - 2;
        EvidenceReport r = verify(log.pack("a", from, to, a.get(from).timestamp(), a.get(to).timestamp()));
        assertThat(r.verdict()).as(EvidenceReportWriter.text(r)).isEqualTo(Verdict.VALID);
        assertThat(r.firstSequence()).isEqualTo(from + 1);
        assertThat(r.lastSequence()).isEqualTo(to);
        assertThat(r.anchorHash()).isEqualTo(a.get(from - 1).hash());
        assertThat(r.check(EvidenceCheck.WINDOW).orElseThrow().outcome()).isEqualTo(Outcome.PASSED);
        assertThat(EvidenceReportWriter.text(r)).contains("or before sequence " + (from + 1));
    }

    @Test
    void anEmptyWindowIsValidAndSaysSo() throws Exception {
        EvidenceReport r = verify(log.pack("a", 0, 0, "2030-01-01T00:00:00Z", null));
        assertThat(r.verdict()).as(EvidenceReportWriter.text(r)).isEqualTo(Verdict.VALID);
        assertThat(r.eventCount()).isZero();
        assertThat(EvidenceReportWriter.statements(r).get(0)).contains("contains no events");
    }

    @Test
    void anyOneFieldOfAnyOneEventChangedFailsNamingTheEvent() throws Exception {
        ObjectNode pack = log.pack("a");
        Random random = new Random(7);
        for (int round = 0; round < 6; round++) {
            int i = random.nextInt(a.size());
            List<String> fields = new ArrayList<>();
            event(pack, i).fieldNames().forEachRemaining(fields::add);
            for (String field : fields) {
                ObjectNode bad = tampered(pack, p -> change(event(p, i), field));
                EvidenceCheck expected = field.equals("log_index") ? EvidenceCheck.INCLUSION_PROOFS
                        : EvidenceCheck.EVENT_HASHES;
                assertFails(verify(bad), expected, (long) i + 1);
                // The report names the event by its id as the package holds it.
                assertThat(verify(bad).firstFailure().orElseThrow().eventId()).isEqualTo(event(bad, i).get("id").asText());
            }
        }
    }

    /** Changes one field's value, keeping its type where it can. */
    private static void change(ObjectNode event, String field) {
        JsonNode v = event.get(field);
        if (v.isTextual()) {
            String t = v.textValue();
            // A hex field stays hex, so the change is not caught as malformed but as a mismatch.
            event.put(field, t.matches("[0-9a-f]{64}") ? (t.charAt(0) == 'a' ? "b" : "a") + t.substring(1) : t + "x");
        } else if (v.isIntegralNumber()) {
            event.put(field, v.longValue() + 1);
        } else if (v.isObject()) {
            ((ObjectNode) v).put("added", true);
        } else {
            throw new AssertionError("fixture field of unexpected type: " + field);
        }
    }

    @Test
    void aRemovedEventFailsTheSequences() throws Exception {
        ObjectNode pack = log.pack("a");
        int mid = a.size() / 2;
        assertFails(verify(tampered(pack, p -> ((ArrayNode) p.get("events")).remove(mid))), EvidenceCheck.SEQUENCES,
                (long) mid + 1);
        assertFails(verify(tampered(pack, p -> ((ArrayNode) p.get("events")).remove(0))), EvidenceCheck.SEQUENCES, 1L);
        // With its proof too: the chain still breaks at the gap.
        assertFails(verify(tampered(pack, p -> {
            ((ArrayNode) p.get("events")).remove(mid);
            ((ArrayNode) p.get("merkle_proofs")).remove(mid);
        })), EvidenceCheck.SEQUENCES, (long) mid + 1);
        // The last one: the chain is intact but shorter than the package says.
        assertFails(verify(tampered(pack, p -> ((ArrayNode) p.get("events")).remove(a.size() - 1))),
                EvidenceCheck.CHAIN_SUMMARY, null);
    }

    @Test
    void twoEventsSwappedFailTheSequences() throws Exception {
        ObjectNode pack = log.pack("a");
        assertFails(verify(tampered(pack, p -> {
            ArrayNode events = (ArrayNode) p.get("events");
            JsonNode third = events.get(2);
            events.set(2, events.get(3));
            events.set(3, third);
        })), EvidenceCheck.SEQUENCES, 3L);
    }

    @Test
    void aChangedSiblingFailsThatEventsInclusionProof() throws Exception {
        ObjectNode pack = log.pack("a");
        for (int i : new int[] {0, a.size() / 2, a.size() - 1}) {
            ObjectNode bad = tampered(pack, p -> {
                ArrayNode siblings = (ArrayNode) proof(p, i).get("siblings");
                siblings.set(siblings.size() - 1, TextNode.valueOf(flip(siblings.get(siblings.size() - 1).asText())));
            });
            EvidenceReport r = verify(bad);
            assertFails(r, EvidenceCheck.INCLUSION_PROOFS, (long) i + 1);
            assertThat(r.firstFailure().orElseThrow().failures()).isEqualTo(1);
        }
    }

    @Test
    void aChangedRootOrTreeSizeFailsTheInclusionProofs() throws Exception {
        ObjectNode pack = log.pack("a");
        EvidenceReport root = verify(tampered(pack, p -> p.put("merkle_root", flip(p.get("merkle_root").asText()))));
        assertFails(root, EvidenceCheck.INCLUSION_PROOFS, 1L);
        assertThat(root.firstFailure().orElseThrow().failures()).isEqualTo(a.size());
        assertFails(verify(tampered(pack, p -> p.put("tree_size", 91))), EvidenceCheck.INCLUSION_PROOFS, 1L);
        assertFails(verify(tampered(pack, p -> p.put("tree_size", 89))), EvidenceCheck.INCLUSION_PROOFS, 1L);
    }

    @Test
    void aChangedAnchorFailsTheAnchor() throws Exception {
        assertFails(verify(tampered(log.pack("a"), p -> ((ObjectNode) p.get("chain")).put("anchor_hash", "1".repeat(64)))),
                EvidenceCheck.ANCHOR, 1L);
        ObjectNode slice = log.pack("a", 4, 9, null, null);
        assertFails(verify(tampered(slice, p -> ((ObjectNode) p.get("chain")).put("anchor_hash",
                flip(p.get("chain").get("anchor_hash").asText())))), EvidenceCheck.ANCHOR, 5L);
    }

    @Test
    void aChangedLeafIndexFailsTheInclusionProofs() throws Exception {
        ObjectNode pack = log.pack("a");
        int i = 2;
        assertFails(verify(tampered(pack, p -> proof(p, i).put("leaf_index", proof(p, i).get("leaf_index").asLong() + 1))),
                EvidenceCheck.INCLUSION_PROOFS, (long) i + 1);
        assertFails(verify(tampered(pack, p -> proof(p, i).put("leaf_hash", flip(proof(p, i).get("leaf_hash").asText())))),
                EvidenceCheck.INCLUSION_PROOFS, (long) i + 1);
    }

    @Test
    void anotherAgentsChainUnderThisNameFailsTheSummary() throws Exception {
        assertFails(verify(tampered(log.pack("b"), p -> {
            ((ObjectNode) p.get("filter")).put("agent_id", "a");
            ((ObjectNode) p.get("chain")).put("agent_id", "a");
        })), EvidenceCheck.CHAIN_SUMMARY, null);
    }

    @Test
    void anEventOfAnotherAgentInsideTheChainFailsItsHashCheck() throws Exception {
        StoredEvent foreign = log.chain("b").get(3);
        EvidenceReport r = verify(tampered(log.pack("a"), p -> ((ArrayNode) p.get("events")).set(3, foreign.json())));
        assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
        CheckResult first = r.firstFailure().orElseThrow();
        // Event b#4 is intact, so the chain check notices it is not a's before anything else.
        assertThat(first.check()).isIn(EvidenceCheck.EVENT_HASHES, EvidenceCheck.SEQUENCES, EvidenceCheck.PREV_HASH_LINKS);
        assertThat(first.sequence()).isEqualTo(4);
    }

    @Test
    void reorderedMembersStillVerify() throws Exception {
        ObjectNode pack = log.pack("a");
        ObjectNode sorted = JSON.createObjectNode();
        new TreeMap<>(toMap(pack)).forEach(sorted::set); // as "jq -S" would write it
        EvidenceReport r = verify(sorted);
        assertThat(r.verdict()).as(EvidenceReportWriter.text(r)).isEqualTo(Verdict.VALID);
        assertFails(verify(tampered(sorted, p -> p.put("merkle_root", flip(p.get("merkle_root").asText())))),
                EvidenceCheck.INCLUSION_PROOFS, 1L);
    }

    @Test
    void eventsBeforeTheirChainSummaryAreHeldUntilItArrives() throws Exception {
        ObjectNode pack = log.pack("a");
        ObjectNode eventsFirst = JSON.createObjectNode();
        eventsFirst.set("events", pack.get("events"));
        toMap(pack).forEach((k, v) -> {
            if (!k.equals("events")) {
                eventsFirst.set(k, v);
            }
        });
        EvidenceReport r = verify(eventsFirst);
        assertThat(r.verdict()).as(EvidenceReportWriter.text(r)).isEqualTo(Verdict.VALID);
        assertThat(r.eventCount()).isEqualTo(a.size());
    }

    @Test
    void aPackageWithoutItsChainSummaryFailsTheFormatWithoutBreakingTheVerifier() throws Exception {
        assertFails(verify(tampered(log.pack("a"), p -> p.remove("chain"))), EvidenceCheck.FORMAT, null);
        assertFails(verify(tampered(log.pack("a"), p -> p.remove("events"))), EvidenceCheck.FORMAT, null);
        assertFails(verify(tampered(log.pack("a"), p -> ((ArrayNode) p.get("events")).set(1, TextNode.valueOf("x")))),
                EvidenceCheck.EVENT_HASHES, 2L);
    }

    private static Map<String, JsonNode> toMap(ObjectNode o) {
        Map<String, JsonNode> m = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
            var e = it.next();
            m.put(e.getKey(), e.getValue());
        }
        return m;
    }

    @Test
    void whatIsNotAPackageIsUnreadable() throws Exception {
        byte[] whole = JSON.writeValueAsBytes(log.pack("a"));
        assertThat(verify(Arrays.copyOf(whole, whole.length / 2)).verdict()).isEqualTo(Verdict.UNREADABLE);
        assertThat(verify("not json".getBytes(StandardCharsets.UTF_8)).verdict()).isEqualTo(Verdict.UNREADABLE);
        assertThat(verify("[]".getBytes(StandardCharsets.UTF_8)).verdict()).isEqualTo(Verdict.UNREADABLE);
        assertThat(verify(tampered(log.pack("a"), p -> p.put("format", "plog"))).verdict()).isEqualTo(Verdict.UNREADABLE);
        EvidenceReport newer = verify(tampered(log.pack("a"), p -> p.put("version", "2.0")));
        assertThat(newer.verdict()).isEqualTo(Verdict.UNREADABLE);
        assertThat(newer.problem()).contains("version \"2.0\"", "newer trailproof");
    }

    @Test
    void aMissingOrWrongHeaderFailsTheFormat() throws Exception {
        assertFails(verify(tampered(log.pack("a"), p -> p.put("hash_algorithm", "SHA-1"))), EvidenceCheck.FORMAT, null);
        assertFails(verify(tampered(log.pack("a"), p -> p.remove("merkle_proofs"))), EvidenceCheck.FORMAT, null);
        assertFails(verify(tampered(log.pack("a"), p -> p.set("tree_size", TextNode.valueOf("90")))),
                EvidenceCheck.FORMAT, null);
        byte[] twice = new String(JSON.writeValueAsBytes(log.pack("a")), StandardCharsets.UTF_8)
                .replaceFirst("\\{", "{\"tree_size\":90,").getBytes(StandardCharsets.UTF_8);
        assertFails(verify(twice), EvidenceCheck.FORMAT, null);
    }

    @Test
    void aDuplicateKeyInsideAnEventIsCaught() throws Exception {
        String text = new String(JSON.writeValueAsBytes(log.pack("a")), StandardCharsets.UTF_8);
        String id = a.get(1).id();
        String bad = text.replace("\"id\":\"" + id + "\"", "\"id\":\"" + id + "\",\"id\":\"" + id + "\"");
        assertFails(verify(bad.getBytes(StandardCharsets.UTF_8)), EvidenceCheck.EVENT_HASHES, 2L);
    }

    /** Property: a single changed character inside any event's or proof's text never verifies. */
    @Test
    void noSingleCharacterChangeInsideTheEvidenceVerifies() throws Exception {
        byte[] bytes = JSON.writeValueAsBytes(log.pack("a", 2, 9, null, null));
        String text = new String(bytes, StandardCharsets.US_ASCII);
        int start = text.indexOf("\"events\":");
        int end = text.indexOf("\"timestamps\":");
        Random random = new Random(20261122);
        String alphabet = "0123456789abcdefxyz\"{}[],:-. ";
        for (int round = 0; round < 400; round++) {
            int at = start + random.nextInt(end - start);
            char now = text.charAt(at);
            char next;
            do {
                next = alphabet.charAt(random.nextInt(alphabet.length()));
            } while (next == now);
            byte[] changed = bytes.clone();
            changed[at] = (byte) next;
            EvidenceReport r = verify(changed);
            assertThat(r.verdict()).as("changing %s to %s at %d: %s", now, next, at, EvidenceReportWriter.text(r))
                    .isNotEqualTo(Verdict.VALID);
        }
    }

    @Test
    void aTimestampEntryIsCheckedForConsistencyAndItsTokenByThePlugIn() throws Exception {
        ObjectNode pack = log.pack("a");
        long size = pack.get("tree_size").asLong();
        long stamped = a.get(a.size() / 2).logIndex() + 1; // covers the first half of a's events
        ObjectNode entry = JSON.createObjectNode().put("id", "ts-1").put("tsa", "tsa.example")
                .put("timestamp", "2026-11-22T10:00:00Z").put("tree_size", stamped)
                .put("merkle_root", HexFormat.of().formatHex(log.tree.root(stamped)));
        ObjectNode cp = entry.putObject("consistency_proof").put("from", stamped).put("to", size);
        ArrayNode path = cp.putArray("proof");
        MerkleTree.consistencyProof(log.tree, stamped, size)
                .forEach(h -> path.add(HexFormat.of().formatHex(h)));
        ((ArrayNode) pack.get("timestamps")).add(entry);

        TokenChecker trusting = e -> new TokenChecker.TokenVerdict(List.of(
                new TokenChecker.TokenCheck("signature", Outcome.PASSED, null, null, "ok")),
                e.get("timestamp").asText(), e.get("tsa").asText());
        EvidenceReport ok = new EvidenceVerifier(trusting).verify(new ByteArrayInputStream(JSON.writeValueAsBytes(pack)));
        assertThat(ok.verdict()).as(EvidenceReportWriter.text(ok)).isEqualTo(Verdict.VALID);
        assertThat(ok.timestamps().get(0).coveredThroughSequence()).isEqualTo(a.size() / 2 + 1);
        assertThat(EvidenceReportWriter.statements(ok)).anySatisfy(s -> assertThat(s)
                .contains("existed no later than 2026-11-22T10:00:00Z (TSA tsa.example"));
        assertThat(EvidenceReportWriter.statements(ok)).anySatisfy(s -> assertThat(s).contains("are not yet timestamped"));

        // Without a token checker the tree is still checked, but no time is claimed.
        EvidenceReport unchecked = verify(pack);
        assertThat(unchecked.verdict()).isEqualTo(Verdict.VALID);
        assertThat(unchecked.check(EvidenceCheck.TIMESTAMPS).orElseThrow().outcome()).isEqualTo(Outcome.SKIPPED);
        assertThat(EvidenceReportWriter.statements(unchecked)).anySatisfy(s -> assertThat(s).contains("Time is not proven"));

        // A stamped root that is not an earlier state of this tree fails the consistency check.
        entry.put("merkle_root", flip(entry.get("merkle_root").asText()));
        EvidenceReport forged = new EvidenceVerifier(trusting).verify(new ByteArrayInputStream(JSON.writeValueAsBytes(pack)));
        assertFails(forged, EvidenceCheck.TIMESTAMPS, null);
        entry.set("tree_size", IntNode.valueOf(1));
        assertThat(new EvidenceVerifier(trusting).verify(new ByteArrayInputStream(JSON.writeValueAsBytes(pack)))
                .verdict()).isEqualTo(Verdict.INVALID);
    }

    private static String flip(String hex) {
        return (hex.charAt(0) == '0' ? '1' : '0') + hex.substring(1);
    }
}
