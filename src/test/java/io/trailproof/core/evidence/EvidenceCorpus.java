package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.PackageFixture.JSON;
import static io.trailproof.core.evidence.PackageEdits.array;
import static io.trailproof.core.evidence.PackageEdits.edit;
import static io.trailproof.core.evidence.PackageEdits.moveFirst;
import static io.trailproof.core.evidence.PackageEdits.moveLast;
import static io.trailproof.core.evidence.PackageEdits.pointers;
import static io.trailproof.core.evidence.PackageEdits.reversed;
import static io.trailproof.core.evidence.PackageEdits.sorted;
import static io.trailproof.core.evidence.PackageEdits.swap;
import io.trailproof.core.evidence.PackageEdits.Mutation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.evidence.CheckResult.Outcome;
import io.trailproof.core.evidence.TokenChecker.TokenCheck;
import io.trailproof.core.evidence.TokenChecker.TokenVerdict;
import io.trailproof.core.merkle.MerkleTree;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A fixed, seeded corpus of evidence packages for characterizing the verifier: intact packages
 * (whole chains, slices, empty windows, timestamps), every node of a small package changed one way
 * at a time (removed, nulled, changed, retyped), single bits flipped, single characters replaced,
 * truncations, reordered and duplicated members, values the strict reader refuses, and a stream
 * that fails while it is read. Built the same way on every run: the fixtures are seeded and no case
 * depends on the clock.
 */
final class EvidenceCorpus {

    private static final HexFormat HEX = HexFormat.of();

    /** One package: its bytes, and the byte count after which reading it fails (-1: never). */
    record Case(String name, byte[] bytes, int failAfter) {
        InputStream open() {
            if (failAfter < 0) {
                return new ByteArrayInputStream(bytes);
            }
            return new InputStream() {
                private int at;

                @Override
                public int read() throws IOException {
                    if (at >= failAfter) {
                        throw new IOException("simulated read error at byte " + at);
                    }
                    return at < bytes.length ? bytes[at++] & 0xff : -1;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    if (len == 0) {
                        return 0;
                    }
                    int c = read();
                    if (c < 0) {
                        return -1;
                    }
                    b[off] = (byte) c;
                    return 1;
                }
            };
        }
    }

    /**
     * A token checker whose verdict follows the entry's id, so that every outcome a real one can give
     * (passed, failed, skipped, no checks, an exception, no time or TSA of its own) appears in the
     * corpus without real tokens, whose signatures differ from run to run.
     */
    static final TokenChecker SCRIPTED = entry -> {
        String id = entry.path("id").asText("");
        String time = entry.path("timestamp").isTextual() ? entry.get("timestamp").asText() : null;
        String tsa = entry.path("tsa").isTextual() ? "CN=" + entry.get("tsa").asText() : null;
        if (id.contains("throw")) {
            throw new IllegalStateException("the token of " + id + " is not DER");
        }
        if (id.contains("bad")) {
            return new TokenVerdict(List.of(
                    new TokenCheck("signature", Outcome.FAILED, "a signature by the TSA", "another signature",
                            "the token was altered"),
                    new TokenCheck("message_imprint", Outcome.PASSED, null, null, "imprint ok"),
                    new TokenCheck("certificate_chain", Outcome.SKIPPED, null, null, "not checked")), null, null);
        }
        if (id.contains("skip")) {
            return new TokenVerdict(List.of(new TokenCheck("token", Outcome.SKIPPED, null, null, "not checked here")),
                    time, tsa);
        }
        if (id.contains("none")) {
            return new TokenVerdict(List.of(), time, null);
        }
        return new TokenVerdict(List.of(
                new TokenCheck("signature", Outcome.PASSED, null, null, "signed by " + tsa),
                new TokenCheck("message_imprint", Outcome.PASSED, null, null, null),
                new TokenCheck("certificate_chain", Outcome.PASSED, null, null, "")), time, tsa);
    };

    private final Map<String, Case> cases = new LinkedHashMap<>();

    private EvidenceCorpus() {}

    static List<Case> build() throws Exception {
        EvidenceCorpus c = new EvidenceCorpus();
        c.fill();
        return List.copyOf(c.cases.values());
    }

    private void add(String name, byte[] bytes) {
        add(name, bytes, -1);
    }

    private void add(String name, byte[] bytes, int failAfter) {
        if (cases.put(name, new Case(name, bytes, failAfter)) != null) {
            throw new IllegalStateException("two corpus cases named " + name);
        }
    }

    private void add(String name, JsonNode pack) throws Exception {
        add(name, JSON.writeValueAsBytes(pack));
    }

    private void fill() throws Exception {
        PackageFixture small = new PackageFixture(new Random(42), 90, "a", "b", "c");
        PackageFixture big = new PackageFixture(new Random(11), 257, "a", "b");

        // Intact packages.
        List<StoredEvent> a = small.chain("a");
        ObjectNode whole = small.pack("a");
        add("intact/small-a", whole);
        add("intact/small-b", small.pack("b"));
        add("intact/small-c", small.pack("c"));
        add("intact/small-a-slice", small.pack("a", 3, a.size() - 2, a.get(3).timestamp(), a.get(a.size() - 2).timestamp()));
        add("intact/small-a-since", small.pack("a", 5, a.size(), a.get(5).timestamp(), null));
        add("intact/small-a-until", small.pack("a", 0, 7, null, a.get(7).timestamp()));
        add("intact/small-a-one", small.pack("a", 4, 5, null, null));
        add("intact/small-a-first", small.pack("a", 0, 1, null, null));
        add("intact/small-a-empty-window", small.pack("a", 0, 0, "2030-01-01T00:00:00Z", null));
        add("intact/small-a-window-misses", small.pack("a", 2, 6, a.get(3).timestamp(), a.get(4).timestamp()));
        add("intact/big-a", big.pack("a"));
        add("intact/big-b-slice", big.pack("b", 40, 90, null, null));
        ObjectNode stamped = withStamps(small, whole, a);
        add("intact/small-a-stamped", stamped);
        ObjectNode slice = small.pack("a", 2, 8, null, null);
        ObjectNode stampedSlice = withStamps(small, slice, a.subList(2, 8));
        add("intact/small-a-slice-stamped", stampedSlice);
        List<StoredEvent> bigB = big.chain("b");
        ObjectNode bigStamped = withStamps(big, big.pack("b", 10, 30, null, null), bigB.subList(10, 30));
        add("intact/big-b-slice-stamped", bigStamped);
        for (String id : new String[] {"ts-bad", "ts-throw", "ts-skip", "ts-none"}) {
            ObjectNode p = slice.deepCopy();
            long size = p.get("tree_size").asLong();
            ((ArrayNode) p.get("timestamps")).add(stamp(small, id, "2026-11-22T09:00:00Z", a.get(5).logIndex() + 1, size));
            add("intact/small-a-slice-" + id, p);
        }
        ObjectNode unordered = slice.deepCopy();
        long size = unordered.get("tree_size").asLong();
        ArrayNode ts = (ArrayNode) unordered.get("timestamps");
        ts.add(stamp(small, "ts-late-wide", "2026-11-22T12:00:00Z", size, size));
        ts.add(stamp(small, "ts-early-narrow", "2026-11-22T08:00:00Z", a.get(3).logIndex() + 1, size));
        ts.add(stamp(small, "ts-same-time", "2026-11-22T08:00:00Z", a.get(2).logIndex() + 1, size));
        ts.add(stamp(small, "ts-no-time", "not a time", size, size));
        add("intact/small-a-slice-stamps-unordered", unordered);

        // Member order and layout.
        add("order/sorted", sorted(stamped));
        add("order/reversed", reversed(stamped));
        add("order/events-first", moveFirst(stamped, "events"));
        add("order/proofs-first", moveFirst(stamped, "merkle_proofs"));
        add("order/timestamps-first", moveFirst(stamped, "timestamps"));
        add("order/chain-last", moveLast(stamped, "chain"));
        add("order/root-last", moveLast(stamped, "merkle_root"));
        add("order/format-last", moveLast(stamped, "format"));
        add("order/pretty", JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(stampedSlice));
        add("order/unknown-members", edit(stampedSlice, p -> {
            p.putObject("comment").put("by", "an auditor").putArray("notes").add(1).add("two");
            p.put("zzz", 3);
        }));

        // Every node of a small stamped slice, changed one way at a time.
        ObjectNode base = small.pack("a", 4, 7, null, null);
        long baseSize = base.get("tree_size").asLong();
        ((ArrayNode) base.get("timestamps")).add(stamp(small, "ts-1", "2026-11-22T09:00:00Z", a.get(5).logIndex() + 1,
                baseSize));
        ((ArrayNode) base.get("timestamps")).add(stamp(small, "ts-2", "2026-11-22T10:00:00Z", baseSize, baseSize));
        ((ObjectNode) base.get("filter")).put("since", a.get(4).timestamp()).put("until", a.get(7).timestamp());
        add("field/base", base);
        for (String pointer : pointers(base)) {
            for (Mutation m : Mutation.values()) {
                ObjectNode copy = base.deepCopy();
                if (m.apply(copy, pointer)) {
                    add("field" + pointer + "/" + m.name().toLowerCase(), copy);
                }
            }
        }
        // A few random nodes of the bigger packages.
        Random random = new Random(1122);
        for (ObjectNode big1 : new ObjectNode[] {bigStamped, whole}) {
            List<String> all = pointers(big1);
            for (int i = 0; i < 40; i++) {
                String pointer = all.get(random.nextInt(all.size()));
                Mutation m = Mutation.values()[random.nextInt(Mutation.values().length)];
                ObjectNode copy = big1.deepCopy();
                String name = "random-field/" + (big1 == whole ? "small-a" : "big-b") + pointer + "/" + m.name().toLowerCase();
                if (m.apply(copy, pointer) && !cases.containsKey(name)) {
                    add(name, copy);
                }
            }
        }

        // Whole events, proofs and timestamps moved, removed, duplicated or foreign.
        int mid = a.size() / 2;
        add("items/event-removed-first", edit(whole, p -> array(p, "events").remove(0)));
        add("items/event-removed-mid", edit(whole, p -> array(p, "events").remove(mid)));
        add("items/event-removed-last", edit(whole, p -> array(p, "events").remove(a.size() - 1)));
        add("items/event-and-proof-removed", edit(whole, p -> {
            array(p, "events").remove(mid);
            array(p, "merkle_proofs").remove(mid);
        }));
        add("items/events-swapped", edit(whole, p -> swap(array(p, "events"), 2, 3)));
        add("items/proofs-swapped", edit(whole, p -> swap(array(p, "merkle_proofs"), 2, 3)));
        add("items/event-duplicated", edit(whole, p -> array(p, "events").insert(3, array(p, "events").get(3))));
        add("items/proof-duplicated", edit(whole, p -> array(p, "merkle_proofs").add(array(p, "merkle_proofs").get(0))));
        add("items/proof-removed-last", edit(whole, p -> array(p, "merkle_proofs").remove(a.size() - 1)));
        add("items/proofs-empty", edit(whole, p -> array(p, "merkle_proofs").removeAll()));
        add("items/events-empty", edit(whole, p -> array(p, "events").removeAll()));
        add("items/foreign-event", edit(whole, p -> array(p, "events").set(3, small.chain("b").get(3).json())));
        add("items/foreign-first-event", edit(whole, p -> array(p, "events").set(0, small.chain("b").get(0).json())));
        add("items/other-agents-chain", edit(small.pack("b"), p -> {
            ((ObjectNode) p.get("filter")).put("agent_id", "a");
            ((ObjectNode) p.get("chain")).put("agent_id", "a");
        }));
        add("items/other-agents-events", edit(small.pack("b"), p -> {
            ((ObjectNode) p.get("filter")).put("agent_id", "a");
        }));
        add("items/relinked-event", edit(whole, p -> array(p, "events").set(3, relinked(a.get(3)))));
        add("items/relinked-first-event", edit(whole, p -> array(p, "events").set(0, relinked(a.get(0)))));
        add("items/relinked-first-of-slice", edit(slice, p -> array(p, "events").set(0, relinked(a.get(2)))));
        add("items/relinked-after-removed", edit(whole, p -> {
            array(p, "events").set(5, relinked(a.get(5)));
            array(p, "events").remove(2);
        }));
        add("items/unreadable-first-event", edit(whole, p -> array(p, "events").set(0, TextNode.valueOf("x"))));
        add("items/unreadable-events", edit(whole, p -> {
            array(p, "events").set(1, TextNode.valueOf("x"));
            array(p, "events").set(4, IntNode.valueOf(4));
        }));
        add("items/empty-with-stray-proof", edit(small.pack("a", 0, 0, null, null),
                p -> array(p, "merkle_proofs").add(array(whole, "merkle_proofs").get(0))));
        add("items/timestamp-duplicated", edit(stampedSlice, p -> array(p, "timestamps").add(array(p, "timestamps").get(0))));
        add("items/timestamps-all-kinds", edit(stampedSlice, p -> {
            for (String id : new String[] {"ts-bad", "ts-throw", "ts-skip", "ts-none"}) {
                ObjectNode e = (ObjectNode) array(p, "timestamps").get(0).deepCopy();
                array(p, "timestamps").add(e.put("id", id));
            }
        }));
        add("items/stamp-of-other-tree", edit(stampedSlice, p -> array(p, "timestamps")
                .set(0, stamp(big, "ts-other", "2026-11-22T09:00:00Z", 20, 90))));
        add("items/genesis-anchor-on-slice", edit(slice, p -> ((ObjectNode) p.get("chain"))
                .put("anchor_hash", "0".repeat(64))));
        add("items/first-sequence-1-on-slice", edit(slice, p -> ((ObjectNode) p.get("chain")).put("first_sequence", 1)));
        add("items/nonzero-anchor-at-1", edit(whole, p -> ((ObjectNode) p.get("chain")).put("anchor_hash", "1".repeat(64))));
        add("items/anchor-not-hex-at-1", edit(whole, p -> ((ObjectNode) p.get("chain")).put("anchor_hash", "zz")));
        add("items/anchor-missing-on-slice", edit(slice, p -> ((ObjectNode) p.get("chain")).remove("anchor_hash")));
        add("items/first-sequence-missing", edit(slice, p -> ((ObjectNode) p.get("chain")).remove("first_sequence")));
        add("items/chain-not-object", edit(stampedSlice, p -> p.put("chain", "chain")));
        add("items/chain-null-events-first", edit(moveFirst(stampedSlice, "events"), p -> p.putNull("chain")));
        add("items/no-chain-no-root", edit(stampedSlice, p -> {
            p.remove("chain");
            p.remove("merkle_root");
        }));
        add("items/proofs-before-events-no-root", moveFirst(edit(stampedSlice, p -> p.remove("merkle_root")), "merkle_proofs"));

        // Text-level edits: duplicated members, values the strict reader refuses, numbers.
        String text = new String(JSON.writeValueAsBytes(stampedSlice), StandardCharsets.UTF_8);
        for (String member : new String[] {"format", "version", "exported_at", "filter", "hash_algorithm",
                "canonicalization", "merkle_tree", "merkle_root", "tree_size", "chain", "events", "merkle_proofs",
                "timestamps"}) {
            JsonNode value = stampedSlice.get(member);
            add("text/duplicate-" + member, ("{\"" + member + "\":" + JSON.writeValueAsString(value) + ","
                    + text.substring(1)).getBytes(StandardCharsets.UTF_8));
        }
        add("text/trailing-object", (text + " {}").getBytes(StandardCharsets.UTF_8));
        add("text/trailing-garbage", (text + " x").getBytes(StandardCharsets.UTF_8));
        add("text/trailing-whitespace", (text + " \n\t").getBytes(StandardCharsets.UTF_8));
        add("text/bom", ("\uFEFF" + text).getBytes(StandardCharsets.UTF_8));
        String id = a.get(3).id();
        add("text/duplicate-key-in-event", text.replace("\"id\":\"" + id + "\"", "\"id\":\"" + id + "\",\"id\":\"" + id + "\"")
                .getBytes(StandardCharsets.UTF_8));
        add("text/duplicate-key-in-proof", text.replaceFirst("\"leaf_index\":", "\"leaf_index\":1,\"leaf_index\":")
                .getBytes(StandardCharsets.UTF_8));
        add("text/duplicate-key-in-stamp", text.replaceFirst("\"tsa\":", "\"tsa\":\"x\",\"tsa\":")
                .getBytes(StandardCharsets.UTF_8));
        add("text/duplicate-key-in-filter", text.replaceFirst("\"filter\":\\{", "\"filter\":{\"since\":null,")
                .getBytes(StandardCharsets.UTF_8));
        for (String where : new String[] {"\"action_name\":\"", "\"event_id\":\"", "\"tsa\":\"", "\"agent_id\":\"",
                "\"exported_at\":\"", "\"merkle_tree\":\""}) {
            add("text/lone-surrogate-" + where.replaceAll("[^a-z_]", ""),
                    text.replaceFirst(where, where + "\\\\ud800").getBytes(StandardCharsets.UTF_8));
        }
        add("text/lone-surrogate-key-in-event", text.replaceFirst("\"action_name\"", "\"\\\\udc00\":1,\"action_name\"")
                .getBytes(StandardCharsets.UTF_8));
        add("text/deep-filter", text.replaceFirst("\"filter\":\\{", "\"filter\":{\"deep\":[[[[[[[[[1]]]]]]]]],")
                .getBytes(StandardCharsets.UTF_8));
        add("text/deep-stamp", text.replaceFirst("\"tsa\":", "\"deep\":[[[[[[[[[1]]]]]]]]],\"tsa\":")
                .getBytes(StandardCharsets.UTF_8));
        add("text/deep-proof", text.replaceFirst("\"leaf_index\":", "\"deep\":[[[[[[[[[1]]]]]]]]],\"leaf_index\":")
                .getBytes(StandardCharsets.UTF_8));
        add("text/float-tree-size", text.replace("\"tree_size\":" + baseSize, "\"tree_size\":" + baseSize + ".0")
                .getBytes(StandardCharsets.UTF_8));
        add("text/exponent-tree-size", text.replace("\"tree_size\":" + baseSize, "\"tree_size\":9e1")
                .getBytes(StandardCharsets.UTF_8));
        add("text/huge-tree-size", text.replace("\"tree_size\":" + baseSize, "\"tree_size\":99999999999999999999")
                .getBytes(StandardCharsets.UTF_8));
        add("text/inexact-number", text.replaceFirst("\"leaf_index\":", "\"x\":0.1000000000000000000001,\"leaf_index\":")
                .getBytes(StandardCharsets.UTF_8));
        add("text/bad-utf8", text.replaceFirst("\"action_name\":\"", "\"action_name\":\"\u0000")
                .replace('\u0000', '\u00ff').getBytes(StandardCharsets.ISO_8859_1));
        add("text/control-char", text.replaceFirst("\"action_name\":\"", "\"action_name\":\"\t")
                .getBytes(StandardCharsets.UTF_8));

        // Not a package at all.
        add("unreadable/empty", new byte[0]);
        add("unreadable/whitespace", " \n ".getBytes(StandardCharsets.UTF_8));
        add("unreadable/not-json", "not json".getBytes(StandardCharsets.UTF_8));
        add("unreadable/array", "[]".getBytes(StandardCharsets.UTF_8));
        add("unreadable/string", "\"trailproof-evidence\"".getBytes(StandardCharsets.UTF_8));
        add("unreadable/empty-object", "{}".getBytes(StandardCharsets.UTF_8));
        add("unreadable/only-format", "{\"format\":\"trailproof-evidence\"}".getBytes(StandardCharsets.UTF_8));
        add("unreadable/unclosed", "{\"format\":\"trailproof-evidence\"".getBytes(StandardCharsets.UTF_8));
        add("unreadable/other-format", edit(stampedSlice, p -> p.put("format", "plog")));
        add("unreadable/format-number", edit(stampedSlice, p -> p.put("format", 1)));
        add("unreadable/newer-version", edit(stampedSlice, p -> p.put("version", "2.0")));
        add("unreadable/version-number", edit(stampedSlice, p -> p.put("version", 1.0)));
        add("unreadable/version-late", moveLast(edit(stampedSlice, p -> p.put("version", "1.1")), "version"));
        add("unreadable/format-missing", edit(stampedSlice, p -> p.remove("format")));
        add("unreadable/format-surrogate", text.replaceFirst("\"format\":\"", "\"format\":\"\\\\ud800")
                .getBytes(StandardCharsets.UTF_8));
        byte[] stampedBytes = JSON.writeValueAsBytes(stampedSlice);
        for (int at : new int[] {0, 1, 10, 200, stampedBytes.length / 2, stampedBytes.length - 1}) {
            add("unreadable/stream-fails-at-" + at, stampedBytes, at);
        }

        // Single bits, single characters, truncations.
        byte[] baseBytes = JSON.writeValueAsBytes(base);
        random = new Random(20261123);
        for (int i = 0; i < 300; i++) {
            int at = random.nextInt(baseBytes.length);
            int bit = random.nextInt(8);
            byte[] changed = baseBytes.clone();
            changed[at] ^= (byte) (1 << bit);
            String name = "bit/" + at + "." + bit;
            if (!cases.containsKey(name)) {
                add(name, changed);
            }
        }
        String alphabet = "0123456789abcdefxyz\"{}[],:-. \\";
        for (int i = 0; i < 200; i++) {
            int at = random.nextInt(baseBytes.length);
            byte next;
            do {
                next = (byte) alphabet.charAt(random.nextInt(alphabet.length()));
            } while (next == baseBytes[at]);
            byte[] changed = baseBytes.clone();
            changed[at] = next;
            String name = "char/" + at + "=" + (char) next;
            if (!cases.containsKey(name)) {
                add(name, changed);
            }
        }
        byte[] bigBytes = JSON.writeValueAsBytes(bigStamped);
        for (int i = 0; i < 60; i++) {
            int at = random.nextInt(bigBytes.length);
            int bit = random.nextInt(8);
            byte[] changed = bigBytes.clone();
            changed[at] ^= (byte) (1 << bit);
            String name = "big-bit/" + at + "." + bit;
            if (!cases.containsKey(name)) {
                add(name, changed);
            }
        }
        for (int i = 0; i < 40; i++) {
            int at = random.nextInt(baseBytes.length);
            String name = "truncated/" + at;
            if (!cases.containsKey(name)) {
                add(name, Arrays.copyOf(baseBytes, at));
            }
        }
    }

    // ------------------------------------------------------------ building blocks

    /** A timestamp entry over the fixture's tree of {@code stamped} events, with its consistency proof to {@code size}. */
    static ObjectNode stamp(PackageFixture f, String id, String time, long stamped, long size) {
        ObjectNode entry = JSON.createObjectNode().put("id", id).put("tsa", "tsa.example").put("timestamp", time)
                .put("tree_size", stamped).put("merkle_root", HEX.formatHex(f.tree.root(stamped)));
        ObjectNode cp = entry.putObject("consistency_proof").put("from", stamped).put("to", size);
        ArrayNode path = cp.putArray("proof");
        MerkleTree.consistencyProof(f.tree, stamped, size).forEach(h -> path.add(HEX.formatHex(h)));
        return entry;
    }

    /** The package with stamps covering none, the first half and all of {@code events}, in a mixed order of time. */
    private static ObjectNode withStamps(PackageFixture f, ObjectNode pack, List<StoredEvent> events) {
        ObjectNode p = pack.deepCopy();
        long size = p.get("tree_size").asLong();
        ArrayNode ts = (ArrayNode) p.get("timestamps");
        long first = events.get(0).logIndex();
        if (first > 0) {
            ts.add(stamp(f, "ts-none-covered", "2026-11-22T07:00:00Z", first, size));
        }
        ts.add(stamp(f, "ts-half", "2026-11-22T10:00:00Z", events.get(events.size() / 2).logIndex() + 1, size));
        ts.add(stamp(f, "ts-all", "2026-11-22T11:00:00.5Z", size, size));
        return p;
    }

    /** The event sealed again, intact, but linked to another hash than its predecessor's. */
    private static ObjectNode relinked(StoredEvent e) {
        ObjectNode fields = e.json();
        for (String assigned : new String[] {"id", "schema_version", "sequence", "prev_hash", "recorded_at", "log_index",
                "hash"}) {
            fields.remove(assigned);
        }
        try {
            return StoredEvent.seal(fields, e.id(), e.recordedAt(), e.sequence(), "1".repeat(64), e.logIndex()).json();
        } catch (Exception x) {
            throw new IllegalStateException(x);
        }
    }
}
