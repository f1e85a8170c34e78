package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.PackageFixture.JSON;
import static io.trailproof.core.evidence.PackageFixture.verify;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventErasure;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.evidence.EvidenceReport.Verdict;
import io.trailproof.core.merkle.MerkleTree;
import io.trailproof.core.merkle.Rfc9162;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/**
 * Evidence packages with erased events (src/site/evidence-format.md#erasures): an erased event is
 * accepted only when a proven, intact erasure event of the package names it; any other change fails.
 */
class EvidenceErasureTest {

    private static final HexFormat HEX = HexFormat.of();
    private static final String ERASURE_ID = "019a8b2c-1d2e-7f30-8a41-ffffffffffff";
    private static final String ERASED_AT = "2026-11-23T00:00:00.000000Z";

    /** Agent a's chain with its events at ordinals 1 and 2 erased by one erasure event appended to the log. */
    private static final class Erased {
        final PackageFixture log;
        final List<StoredEvent> a;
        final StoredEvent erasure;

        Erased(List<Integer> ordinals, List<Integer> named, List<String> fields) throws Exception {
            log = new PackageFixture(new Random(20261123), 14, "a", "b");
            a = log.chain("a");
            ObjectNode input = JSON.createObjectNode();
            input.putObject("selector").put("event_ids", named.size());
            ArrayNode f = input.putArray("fields");
            EventErasure.ordered(fields).forEach(f::add);
            input.put("reason", "data subject request 7");
            ArrayNode ids = input.putArray("event_ids");
            ArrayNode ranges = input.putArray("log_indexes");
            for (int o : named) {
                ids.add(a.get(o).id());
                ranges.addArray().add(a.get(o).logIndex()).add(a.get(o).logIndex());
            }
            input.put("count", named.size());
            ObjectNode fieldsOfErasure = JSON.createObjectNode().put("agent_id", EventFields.ERASURES_AGENT)
                    .put("action_type", "ERASURE").put("action_name", "erase");
            fieldsOfErasure.set("action_input", input);
            erasure = StoredEvent.seal(fieldsOfErasure, ERASURE_ID, ERASED_AT, 1, EventFields.GENESIS_PREV_HASH,
                    log.log.size());
            log.log.add(erasure);
            log.tree.append(Rfc9162.leafHash(erasure.hashBytes()));
            for (int o : ordinals) {
                StoredEvent erasedForm = StoredEvent.parse(EventErasure.erase(a.get(o).payload(), ERASURE_ID, ERASED_AT,
                        fields));
                a.set(o, erasedForm);
            }
        }

        ObjectNode pack() {
            ObjectNode p = log.pack("a");
            long size = p.get("tree_size").asLong();
            ArrayNode erasures = JSON.createArrayNode();
            ObjectNode item = erasures.addObject();
            item.set("event", erasure.json());
            ObjectNode proof = item.putObject("proof");
            proof.put("leaf_hash", HEX.formatHex(log.tree.get(0, erasure.logIndex()))).put("leaf_index", erasure.logIndex());
            ArrayNode siblings = proof.putArray("siblings");
            MerkleTree.inclusionProof(log.tree, erasure.logIndex(), size).forEach(s -> siblings.add(HEX.formatHex(s)));
            proof.put("tree_size", size);
            // Written after the events, before the proofs, as the service writes it.
            ObjectNode ordered = JSON.createObjectNode();
            for (var e : p.properties()) {
                if (e.getKey().equals("merkle_proofs")) {
                    ordered.set("erasures", erasures);
                }
                ordered.set(e.getKey(), e.getValue());
            }
            return ordered;
        }
    }

    private static final List<String> ALL = EventErasure.ERASABLE;
    /** The members of an erased event the package still proves. */
    private static final List<String> PROVEN = List.of("id", "agent_id", "sequence", "prev_hash", "hash", "log_index",
            "erased");

    @Test
    void anErasedEventNamedByAProvenErasureVerifiesAndTheReportSaysSo() throws Exception {
        Erased e = new Erased(List.of(1, 2), List.of(1, 2), ALL);
        EvidenceReport r = verify(e.pack());
        assertThat(r.verdict()).as(EvidenceReportWriter.text(r)).isEqualTo(Verdict.VALID);
        assertThat(EvidenceReportWriter.statements(r)).anySatisfy(s -> assertThat(s)
                .startsWith("2 events erased (erasure " + ERASURE_ID + " at " + ERASED_AT + ": data subject request 7)"));
        assertThat(r.check(EvidenceCheck.EVENT_HASHES).orElseThrow().detail())
                .contains((e.a.size() - 2) + " event hashes recomputed").contains("2 erased events keep the hash");
        assertThat(EvidenceReportWriter.json(r).get("erasures").get(0).get("events").asInt()).isEqualTo(2);
    }

    @Test
    void anErasedEventWithoutItsErasureFails() throws Exception {
        Erased e = new Erased(List.of(1, 2), List.of(1, 2), ALL);
        ObjectNode p = e.pack();
        p.remove("erasures");
        EvidenceReport r = verify(p);
        assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
        CheckResult f = r.firstFailure().orElseThrow();
        assertThat(f.check()).isEqualTo(EvidenceCheck.EVENT_HASHES);
        assertThat(f.sequence()).isEqualTo(2L);
        assertThat(f.detail()).contains("erasure without record");
    }

    @Test
    void anErasedEventTheErasureDoesNotNameFails() throws Exception {
        Erased e = new Erased(List.of(1, 2), List.of(1), ALL);
        EvidenceReport r = verify(e.pack());
        assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
        CheckResult f = r.firstFailure().orElseThrow();
        assertThat(f.check()).isEqualTo(EvidenceCheck.EVENT_HASHES);
        assertThat(f.sequence()).isEqualTo(3L);
        assertThat(f.actual()).contains("event_ids without " + e.a.get(2).id());
    }

    @Test
    void anErasureThatWasChangedOrNotProvenFails() throws Exception {
        Erased e = new Erased(List.of(1), List.of(1), ALL);
        ObjectNode reason = e.pack();
        ((ObjectNode) reason.at("/erasures/0/event/action_input")).put("reason", "routine");
        EvidenceReport changed = verify(reason);
        assertThat(changed.firstFailure().orElseThrow().check()).isEqualTo(EvidenceCheck.EVENT_HASHES);
        assertThat(changed.firstFailure().orElseThrow().detail()).contains("erasure event was changed");

        ObjectNode proof = e.pack();
        ArrayNode siblings = (ArrayNode) proof.at("/erasures/0/proof/siblings");
        String s = siblings.get(0).asText();
        siblings.set(0, JSON.getNodeFactory().textNode((s.charAt(0) == '0' ? "1" : "0") + s.substring(1)));
        EvidenceReport unproven = verify(proof);
        assertThat(unproven.firstFailure().orElseThrow().check()).isEqualTo(EvidenceCheck.INCLUSION_PROOFS);

        ObjectNode fields = e.pack();
        ((ArrayNode) fields.at("/events/1/erased/fields")).remove(0);
        assertThat(verify(fields).firstFailure().orElseThrow().actual()).contains("erased.fields");
    }

    /**
     * Every one-bit change of every byte of the events, the erasures and the proofs fails,
     * except in the members of an erased event no hash covers any more (recorded_at, schema_version
     * and the fields the erasure kept: src/site/evidence-format.md#erasures says they are not proven).
     */
    @Test
    void noOneBitChangeOutsideTheUnprovableMembersVerifies() throws Exception {
        Erased e = new Erased(List.of(1, 2), List.of(1, 2), List.of("action_input", "duration_ms"));
        byte[] bytes = JSON.writeValueAsBytes(e.pack());
        String text = new String(bytes, StandardCharsets.US_ASCII);
        assertThat(verify(bytes).verdict()).isEqualTo(Verdict.VALID);
        List<int[]> unprovable = new ArrayList<>();
        for (int o : List.of(1, 2)) {
            JsonNode ev = JSON.readTree(e.a.get(o).payload());
            String whole = JSON.writeValueAsString(e.a.get(o).json());
            int from = text.indexOf(whole);
            assertThat(from).isPositive();
            for (var member : ev.properties()) {
                if (PROVEN.contains(member.getKey())) {
                    continue;
                }
                String m = "\"" + member.getKey() + "\":" + JSON.writeValueAsString(member.getValue());
                int at = text.indexOf(m, from);
                assertThat(at).isBetween(from, from + whole.length() - m.length());
                unprovable.add(new int[] {at, at + m.length()});
            }
        }
        int start = text.indexOf("\"events\":");
        int end = text.indexOf("\"timestamps\":");
        int flipped = 0;
        for (int at = start; at < end; at++) {
            final int i = at;
            if (unprovable.stream().anyMatch(r -> i >= r[0] && i < r[1])) {
                continue;
            }
            byte[] changed = bytes.clone();
            changed[at] ^= 1; // one bit
            EvidenceReport r = verify(changed);
            assertThat(r.verdict()).as("flipping the low bit of %s at %d: %s", text.charAt(at), at,
                    EvidenceReportWriter.text(r)).isNotEqualTo(Verdict.VALID);
            flipped++;
        }
        assertThat(flipped).isGreaterThan(3000);
        // And inside the unprovable members the package does verify: the report says they are not proven.
        int recordedAt = unprovable.stream().filter(sp -> text.startsWith("\"recorded_at\"", sp[0])).findFirst()
                .orElseThrow()[0];
        int inside = recordedAt + "\"recorded_at\":\"".length() + 3;
        byte[] changed = bytes.clone();
        changed[inside] = (byte) (changed[inside] == '1' ? '2' : '1');
        EvidenceReport r = verify(changed);
        assertThat(r.verdict()).isEqualTo(Verdict.VALID);
        assertThat(EvidenceReportWriter.statements(r)).anySatisfy(st -> assertThat(st).contains("are not proven"));
    }
}
