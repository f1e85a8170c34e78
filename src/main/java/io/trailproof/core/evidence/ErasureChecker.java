package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.EvidenceFormat.*;
import static io.trailproof.core.evidence.FormatValues.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.core.evidence.EvidenceReport.ErasureSummary;
import io.trailproof.core.merkle.InclusionCheck;
import io.trailproof.core.merkle.MerkleProofs;
import io.trailproof.core.merkle.Rfc9162;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The erased events of a package and the erasure events that cover them
 * (src/site/evidence-format.md#erasures). An erased event's hash cannot be recomputed, so it is
 * accepted only when an item of {@code erasures} holds an erasure event that is itself intact (its
 * hash recomputes), is of agent {@code trailproof.erasures} with {@code action_type} {@code ERASURE},
 * is included in the package's tree (its proof leads to {@code merkle_root}), and names the erased
 * event: its id at the same position of {@code event_ids} as its {@code log_index} in the expanded
 * {@code log_indexes}, with the same {@code recorded_at} as the event's {@code erased.at} and the
 * same {@code fields}. A failure of the erasure event's own hash or of the pairing is an
 * {@link EvidenceCheck#EVENT_HASHES} failure; of its inclusion, an {@link EvidenceCheck#INCLUSION_PROOFS}
 * failure. Holds the erasure events (few, and small) and a few facts per erased event.
 */
final class ErasureChecker implements PackageReader.ErasureSink, ErasedEvents {

    /** What an erased event of {@code events} claims. */
    private record Claim(long sequence, String eventId, long logIndex, String erasureId, String at, JsonNode fields) {
    }

    /** An erasure event of {@code erasures} with its proof, as read. */
    private record Erasure(StoredEvent event, JsonNode proof) {
    }

    private final PackageHeader header;
    private final Tally format;
    private final List<Claim> claims = new ArrayList<>();
    private final Map<String, Erasure> erasures = new LinkedHashMap<>();
    private final Tally hashes = new Tally(EvidenceCheck.EVENT_HASHES);
    private final Tally inclusion = new Tally(EvidenceCheck.INCLUSION_PROOFS);
    private final Map<String, Long> counts = new LinkedHashMap<>();

    ErasureChecker(PackageHeader header, Tally format) {
        this.header = header;
        this.format = format;
    }

    @Override
    public void claim(StoredEvent event) {
        JsonNode erased = event.json().get(EventFields.ERASED);
        claims.add(new Claim(event.sequence(), event.id(), event.logIndex(), event.erasureId(),
                text(erased, "at"), erased.get("fields")));
    }

    @Override
    public void erasure(JsonNode item) {
        JsonNode eventNode = item == null ? null : item.get(EVENT);
        StoredEvent event = null;
        if (eventNode != null && eventNode.isObject()) {
            try {
                event = StoredEvent.parse(eventNode.toString().getBytes(StandardCharsets.UTF_8));
            } catch (StoredEventFormatException e) {
                event = null;
            }
        }
        if (event == null) {
            format.fail(null, null, "an erasure item {\"event\": <stored erasure event>, \"proof\": {...}}",
                    item == null ? "unreadable" : shorten(item.toString()), "an item of erasures cannot be read");
            return;
        }
        if (erasures.containsKey(event.id())) {
            format.fail(null, event.id(), "each erasure event once", "erasure " + event.id() + " twice",
                    "the package holds the same erasure event twice");
            return;
        }
        erasures.put(event.id(), new Erasure(event, item.get(PROOF)));
    }

    @Override
    public long count() {
        return claims.size();
    }

    /** Checks every claim and every erasure event; call once, after reading. */
    void check() {
        for (Erasure e : erasures.values()) {
            checkErasure(e);
        }
        Set<String> referenced = new HashSet<>();
        for (Claim c : claims) {
            Erasure e = erasures.get(c.erasureId());
            if (e != null) {
                referenced.add(c.erasureId());
            }
            if (e == null) {
                hashes.fail(c.sequence(), c.eventId(), "an erasure event " + c.erasureId() + " in erasures", "none",
                        "erasure without record: the event's content is missing and no erasure event of the package "
                                + "accounts for it");
                continue;
            }
            String problem = named(e.event(), c);
            if (problem != null) {
                hashes.fail(c.sequence(), c.eventId(), "erasure " + c.erasureId() + " naming this event", problem,
                        "erasure without record: the erasure event does not name this event as it stands");
                continue;
            }
            counts.merge(c.erasureId(), 1L, Long::sum);
        }
        for (String id : erasures.keySet()) {
            if (!referenced.contains(id)) {
                format.fail(null, id, "an erasure that covers an event of the package", "erasure " + id
                        + " covering none", "the package holds an erasure event that no event of it refers to");
            }
        }
    }

    /** An {@link EvidenceCheck#EVENT_HASHES} failure of the erasures, or null. */
    CheckResult hashFailure() {
        return hashes.failed() ? hashes.result("") : null;
    }

    /** An {@link EvidenceCheck#INCLUSION_PROOFS} failure of the erasure events' proofs, or null. */
    CheckResult inclusionFailure() {
        return inclusion.failed() ? inclusion.result("") : null;
    }

    /** One line per erasure that covers events of the package, in the order of {@code erasures}. */
    List<ErasureSummary> summaries() {
        List<ErasureSummary> out = new ArrayList<>();
        for (Map.Entry<String, Long> c : counts.entrySet()) {
            StoredEvent e = erasures.get(c.getKey()).event();
            out.add(new ErasureSummary(e.id(), e.recordedAt(), e.json().path(EventFields.ACTION_INPUT).path("reason")
                    .asText(""), c.getValue(), e.logIndex()));
        }
        return out;
    }

    private void checkErasure(Erasure e) {
        StoredEvent event = e.event();
        String recomputed = HexFormat.of().formatHex(event.recomputeHash());
        if (event.erased() || !recomputed.equals(event.hash())) {
            hashes.fail(null, event.id(), event.hash(), event.erased() ? "an erased erasure event" : recomputed,
                    "the erasure event's hash, recomputed from its content (actual), is not the hash it carries "
                            + "(expected): the erasure event was changed after it was recorded");
            return;
        }
        if (!EventFields.ERASURES_AGENT.equals(event.agentId())
                || !"ERASURE".equals(event.json().path(EventFields.ACTION_TYPE).textValue())) {
            hashes.fail(null, event.id(), "agent " + EventFields.ERASURES_AGENT + ", action_type ERASURE",
                    "agent " + event.agentId(), "an item of erasures is not an erasure event");
            return;
        }
        JsonNode proof = e.proof();
        byte[] leafHash = hash(proof == null ? null : proof.get(LEAF_HASH));
        Long leafIndex = whole(proof, LEAF_INDEX);
        Long proofTreeSize = whole(proof, TREE_SIZE);
        List<byte[]> siblings = hashes(proof == null ? null : proof.get(SIBLINGS));
        byte[] leaf = Rfc9162.leafHash(event.hashBytes());
        byte[] root = header.merkleRoot();
        Long treeSize = header.treeSize();
        if (leafHash == null || leafIndex == null || proofTreeSize == null || siblings == null) {
            inclusion.fail(null, event.id(), "a proof with leaf_hash, leaf_index, siblings and tree_size",
                    proof == null ? "none" : shorten(proof.toString()),
                    "the inclusion proof of the erasure event is incomplete or malformed");
        } else if (!Arrays.equals(leaf, leafHash)) {
            inclusion.fail(null, event.id(), hex(leaf), hex(leafHash),
                    "the erasure event's proof has a leaf_hash that is not the RFC 9162 leaf hash of its hash");
        } else if (leafIndex != event.logIndex()) {
            inclusion.fail(null, event.id(), "leaf_index " + event.logIndex(), "leaf_index " + leafIndex,
                    "the erasure event's proof is for another position than its log_index");
        } else if (root != null && treeSize != null && !proofTreeSize.equals(treeSize)) {
            inclusion.fail(null, event.id(), "tree_size " + treeSize, "tree_size " + proofTreeSize,
                    "the erasure event's proof is for a tree of another size than the package's tree_size");
        } else if (root != null && treeSize != null) {
            InclusionCheck c = MerkleProofs.checkInclusion(leaf, leafIndex, treeSize, siblings, root);
            if (!c.valid()) {
                inclusion.fail(null, event.id(), hex(root), c.computedRoot() == null ? c.reason()
                        : hex(c.computedRoot()), "the erasure event's inclusion proof does not lead to the "
                        + "package's merkle_root");
            }
        }
    }

    /** Why {@code erasure} does not name the claimed event, or null when it does. */
    private static String named(StoredEvent erasure, Claim c) {
        JsonNode input = erasure.json().path(EventFields.ACTION_INPUT);
        JsonNode ids = input.path("event_ids");
        int k = -1;
        for (int i = 0; i < ids.size(); i++) {
            if (c.eventId().equals(ids.get(i).textValue())) {
                k = i;
                break;
            }
        }
        if (k < 0) {
            return "event_ids without " + c.eventId();
        }
        long position = 0;
        Long indexAtK = null;
        for (JsonNode range : input.path("log_indexes")) {
            long first = range.path(0).asLong(-1);
            long last = range.path(1).asLong(-1);
            if (first < 0 || last < first) {
                return "a malformed range " + range;
            }
            if (k < position + (last - first + 1)) {
                indexAtK = first + (k - position);
                break;
            }
            position += last - first + 1;
        }
        if (indexAtK == null || indexAtK != c.logIndex()) {
            return "event " + c.eventId() + " paired with log_index " + indexAtK + ", not " + c.logIndex();
        }
        if (!erasure.recordedAt().equals(c.at())) {
            return "erased.at " + c.at() + ", the erasure was recorded at " + erasure.recordedAt();
        }
        if (c.fields() == null || !c.fields().equals(input.path("fields"))) {
            return "erased.fields " + c.fields() + ", the erasure named " + input.path("fields");
        }
        return null;
    }

    private static String shorten(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
