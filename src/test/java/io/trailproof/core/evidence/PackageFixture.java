package io.trailproof.core.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.merkle.InMemorySubtreeHashes;
import io.trailproof.core.merkle.MerkleTree;
import io.trailproof.core.merkle.Rfc9162;

import java.io.ByteArrayInputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A log of several agents' interleaved events and evidence packages over it, built from src/site/evidence-format.md
 * with the member names spelled out here (not taken from the production code), so that tests also
 * check the production verifier against the written format.
 */
final class PackageFixture {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    final List<StoredEvent> log = new ArrayList<>();
    final InMemorySubtreeHashes tree = new InMemorySubtreeHashes();
    private final Map<String, List<StoredEvent>> chains = new HashMap<>();

    /** {@code n} events spread at random over {@code agents} agents, event i with timestamp day i of 2026. */
    PackageFixture(Random random, int n, String... agents) throws Exception {
        for (int i = 0; i < n; i++) {
            String agent = agents[random.nextInt(agents.length)];
            List<StoredEvent> chain = chains.computeIfAbsent(agent, a -> new ArrayList<>());
            String prev = chain.isEmpty() ? EventFields.GENESIS_PREV_HASH : chain.get(chain.size() - 1).hash();
            ObjectNode fields = JSON.createObjectNode().put("agent_id", agent).put("action_name", "step " + i)
                    .put("timestamp", Instant.parse("2026-01-01T00:00:00Z").plusSeconds(3600L * i).toString())
                    .put("duration_ms", random.nextInt(1000));
            fields.putObject("action_input").put("n", i).put("q", "text " + random.nextInt());
            String id = String.format("019a8b2c-1d2e-7f30-8a41-%012x", i);
            StoredEvent e = StoredEvent.seal(fields, id, String.format("2026-11-22T00:00:00.%06dZ", i),
                    chain.size() + 1, prev, log.size());
            chain.add(e);
            log.add(e);
            tree.append(Rfc9162.leafHash(e.hashBytes()));
        }
    }

    /** A log of exactly these client fields, in order; event i recorded at second i of 2026-11-22. */
    PackageFixture(List<ObjectNode> events) throws Exception {
        for (ObjectNode fields : events) {
            String agent = fields.get("agent_id").textValue();
            List<StoredEvent> chain = chains.computeIfAbsent(agent, a -> new ArrayList<>());
            String prev = chain.isEmpty() ? EventFields.GENESIS_PREV_HASH : chain.get(chain.size() - 1).hash();
            String id = String.format("019a8b2c-1d2e-7f30-8a41-%012x", log.size());
            StoredEvent e = StoredEvent.seal(fields, id, String.format("2026-11-22T00:00:%02d.000000Z", log.size()),
                    chain.size() + 1, prev, log.size());
            chain.add(e);
            log.add(e);
            tree.append(Rfc9162.leafHash(e.hashBytes()));
        }
    }

    /** The id event {@code index} of the log gets. */
    static String idOf(int index) {
        return String.format("019a8b2c-1d2e-7f30-8a41-%012x", index);
    }

    List<StoredEvent> chain(String agent) {
        return chains.get(agent);
    }

    /** The package of the agent's events with ordinals {@code [from, to)}, against the whole tree. */
    ObjectNode pack(String agent, int from, int to, String since, String until) {
        List<StoredEvent> events = chain(agent).subList(from, to);
        long size = tree.size();
        ObjectNode p = JSON.createObjectNode();
        p.put("format", "trailproof-evidence").put("version", "1.0").put("exported_at", "2026-11-22T10:00:00.000000Z");
        p.putObject("filter").put("agent_id", agent).put("since", since).put("until", until);
        p.put("hash_algorithm", "SHA-256").put("canonicalization", "RFC 8785").put("merkle_tree", "RFC 9162");
        p.put("merkle_root", HEX.formatHex(tree.root(size))).put("tree_size", size);
        ObjectNode chain = p.putObject("chain").put("agent_id", agent).put("length", events.size());
        if (events.isEmpty()) {
            chain.putNull("first_sequence").putNull("last_sequence").putNull("anchor_hash");
        } else {
            chain.put("first_sequence", events.get(0).sequence())
                    .put("last_sequence", events.get(events.size() - 1).sequence())
                    .put("anchor_hash", events.get(0).prevHash());
        }
        ArrayNode evs = p.putArray("events");
        ArrayNode proofs = p.putArray("merkle_proofs");
        for (StoredEvent e : events) {
            evs.add(e.json());
            ObjectNode proof = proofs.addObject().put("event_id", e.id()).putObject("proof");
            proof.put("leaf_hash", HEX.formatHex(tree.get(0, e.logIndex()))).put("leaf_index", e.logIndex());
            ArrayNode siblings = proof.putArray("siblings");
            MerkleTree.inclusionProof(tree, e.logIndex(), size).forEach(s -> siblings.add(HEX.formatHex(s)));
            proof.put("tree_size", size);
        }
        p.putArray("timestamps");
        return p;
    }

    ObjectNode pack(String agent) {
        return pack(agent, 0, chain(agent).size(), null, null);
    }

    static EvidenceReport verify(JsonNode pack) throws Exception {
        return verify(JSON.writeValueAsBytes(pack));
    }

    static EvidenceReport verify(byte[] bytes) {
        return new EvidenceVerifier().verify(new ByteArrayInputStream(bytes));
    }
}
