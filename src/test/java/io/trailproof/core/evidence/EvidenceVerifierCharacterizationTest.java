package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.PackageFixture.JSON;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.evidence.CheckResult.Outcome;
import io.trailproof.core.evidence.EvidenceCorpus.Case;
import io.trailproof.core.evidence.EvidenceReport.Verdict;
import io.trailproof.core.timestamp.Rfc3161;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.testing.TestTsa;
import org.bouncycastle.tsp.TimeStampRequest;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Characterizes the offline verifier: over the fixed {@link EvidenceCorpus}, the complete report
 * (its record, the text and the JSON a person and a script read) must be what it was when this test
 * was written, byte for byte. The expectations are one line per package in
 * {@code characterization.tsv} (its verdicts, first failure and a digest of both renderings under two
 * token checkers). A deliberate change of the verifier's wording or results re-records them with
 * {@code -Devidence.characterization.record=true}, and the diff of that file shows which packages
 * changed.
 */
class EvidenceVerifierCharacterizationTest {

    private static final Path EXPECTED = Path.of("src/test/resources/io/trailproof/core/evidence/characterization.tsv");
    private static final List<TokenChecker> CHECKERS = List.of(TokenChecker.UNAVAILABLE, EvidenceCorpus.SCRIPTED);

    @Test
    void everyReportOfTheCorpusIsAsRecorded() throws Exception {
        List<Case> corpus = EvidenceCorpus.build();
        Map<String, String> actual = new LinkedHashMap<>();
        Set<EvidenceCheck> failed = EnumSet.noneOf(EvidenceCheck.class);
        Set<EvidenceCheck> passed = EnumSet.noneOf(EvidenceCheck.class);
        Set<EvidenceCheck> skipped = EnumSet.noneOf(EvidenceCheck.class);
        Set<Verdict> verdicts = EnumSet.noneOf(Verdict.class);
        for (Case c : corpus) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            StringBuilder line = new StringBuilder(c.name());
            for (TokenChecker tokens : CHECKERS) {
                EvidenceReport r = new EvidenceVerifier(tokens).verify(c.open());
                digest.update(rendered(r).getBytes(StandardCharsets.UTF_8));
                line.append('\t').append(r.verdict().id())
                        .append(r.firstFailure().map(f -> " " + f.check().id() + (f.sequence() == null ? "" : "@" + f.sequence()))
                                .orElse(""));
                verdicts.add(r.verdict());
                for (CheckResult check : r.checks()) {
                    (check.outcome() == Outcome.FAILED ? failed : check.outcome() == Outcome.PASSED ? passed : skipped)
                            .add(check.check());
                }
            }
            line.append('\t').append(HexFormat.of().formatHex(digest.digest(), 0, 8));
            actual.put(c.name(), line.toString());
        }
        // The corpus is only worth its name if it makes every check fail, pass and be skipped somewhere.
        assertThat(failed).as("checks failed somewhere in the corpus").containsExactlyInAnyOrder(EvidenceCheck.values());
        assertThat(passed).as("checks passed somewhere in the corpus").containsExactlyInAnyOrder(EvidenceCheck.values());
        assertThat(skipped).as("checks skipped somewhere in the corpus").contains(EvidenceCheck.EVENT_HASHES,
                EvidenceCheck.INCLUSION_PROOFS, EvidenceCheck.WINDOW, EvidenceCheck.TIMESTAMPS,
                EvidenceCheck.CHAIN_SUMMARY);
        assertThat(verdicts).containsExactlyInAnyOrder(Verdict.values());

        String lines = String.join("\n", actual.values()) + "\n";
        if (Boolean.getBoolean("evidence.characterization.record")) {
            Files.createDirectories(EXPECTED.getParent());
            Files.writeString(EXPECTED, lines);
            return;
        }
        List<String> expected = Files.readAllLines(EXPECTED);
        List<String> differing = new ArrayList<>();
        Map<String, String> expectedByName = new LinkedHashMap<>();
        for (String l : expected) {
            expectedByName.put(l.substring(0, l.indexOf('\t')), l);
        }
        for (String l : actual.values()) {
            String name = l.substring(0, l.indexOf('\t'));
            if (!l.equals(expectedByName.get(name))) {
                differing.add("expected: " + expectedByName.get(name) + "\n  actual: " + l);
            }
        }
        assertThat(differing).as("packages whose report changed (of %d)", actual.size()).isEmpty();
        assertThat(actual.keySet()).as("the corpus").containsExactlyElementsOf(expectedByName.keySet());
    }

    /**
     * While {@link ReferenceEvidenceVerifier} (the verifier before it was split) is kept: the same
     * reports from both, including real RFC 3161 tokens, whose signatures differ from run to run and
     * so cannot be recorded.
     */
    @Test
    void theSplitVerifierReportsExactlyWhatTheOriginalDid() throws Exception {
        List<Case> corpus = new ArrayList<>(EvidenceCorpus.build());
        List<TokenChecker> checkers = new ArrayList<>(CHECKERS);
        try (TestTsa tsa = TestTsa.offline()) {
            corpus.addAll(realTokenCases(tsa));
            checkers.add(new Rfc3161TokenChecker(List.of(tsa.root()), "pass --trust-anchor"));
            checkers.add(new Rfc3161TokenChecker(List.of(), null));
        }
        List<String> differing = new ArrayList<>();
        for (Case c : corpus) {
            for (TokenChecker tokens : checkers) {
                EvidenceReport now = new EvidenceVerifier(tokens).verify(c.open());
                EvidenceReport before = new ReferenceEvidenceVerifier(tokens).verify(c.open());
                if (!now.equals(before) || !rendered(now).equals(rendered(before))) {
                    differing.add(c.name() + "\n--- before\n" + rendered(before) + "\n--- now\n" + rendered(now));
                }
            }
        }
        assertThat(differing).as("packages reported differently (of %d)", corpus.size()).isEmpty();
    }

    private static String rendered(EvidenceReport r) {
        return EvidenceReportWriter.text(r) + "\n" + EvidenceReportWriter.json(r).toString() + "\n";
    }

    /** Packages whose timestamps carry real tokens from the test TSA, intact and damaged. */
    private static List<Case> realTokenCases(TestTsa tsa) throws Exception {
        PackageFixture f = new PackageFixture(new Random(5), 40, "a", "b");
        List<StoredEvent> a = f.chain("a");
        ObjectNode pack = f.pack("a");
        long size = pack.get("tree_size").asLong();
        ArrayNode ts = (ArrayNode) pack.get("timestamps");
        ts.add(real(f, tsa, "ts-half", a.get(a.size() / 2).logIndex() + 1, size));
        ts.add(real(f, tsa, "ts-all", size, size));
        tsa.mode(TestTsa.Mode.UNTRUSTED);
        ObjectNode untrusted = f.pack("a");
        ((ArrayNode) untrusted.get("timestamps")).add(real(f, tsa, "ts-stranger", size, size));
        tsa.mode(TestTsa.Mode.OK);
        List<Case> out = new ArrayList<>();
        out.add(new Case("real/intact", JSON.writeValueAsBytes(pack), -1));
        out.add(new Case("real/untrusted", JSON.writeValueAsBytes(untrusted), -1));
        ObjectNode entry = (ObjectNode) ts.get(0);
        for (String member : new String[] {"token", "certificates", "merkle_root", "tree_size", "timestamp", "tsa"}) {
            ObjectNode p = pack.deepCopy();
            ((ObjectNode) p.get("timestamps").get(0)).remove(member);
            out.add(new Case("real/without-" + member, JSON.writeValueAsBytes(p), -1));
        }
        byte[] token = Base64.getDecoder().decode(entry.get("token").asText());
        Random random = new Random(77);
        for (int i = 0; i < 25; i++) {
            byte[] bad = token.clone();
            int at = random.nextInt(bad.length);
            bad[at] ^= (byte) (1 << random.nextInt(8));
            ObjectNode p = pack.deepCopy();
            ((ObjectNode) p.get("timestamps").get(0)).put("token", Base64.getEncoder().encodeToString(bad));
            out.add(new Case("real/token-bit-" + at, JSON.writeValueAsBytes(p), -1));
        }
        ObjectNode p = pack.deepCopy();
        ((ObjectNode) p.get("timestamps").get(0)).put("merkle_root", HexFormat.of().formatHex(f.tree.root(3)));
        out.add(new Case("real/other-root", JSON.writeValueAsBytes(p), -1));
        p = pack.deepCopy();
        ((ArrayNode) p.get("timestamps").get(0).get("certificates")).removeAll();
        out.add(new Case("real/no-certificates", JSON.writeValueAsBytes(p), -1));
        return out;
    }

    private static ObjectNode real(PackageFixture f, TestTsa tsa, String id, long stamped, long size) throws Exception {
        byte[] root = f.tree.root(stamped);
        TimeStampRequest request = Rfc3161.request(root, new byte[] {1, 2, 3, 4, 5, 6, 7, (byte) stamped});
        Rfc3161.Accepted accepted = Rfc3161.accept(request, tsa.respond(request.getEncoded()));
        Base64.Encoder b64 = Base64.getEncoder();
        ObjectNode entry = new TimestampRecord(id, HexFormat.of().formatHex(root), stamped, "tsa.example",
                "http://tsa.example/tsa", accepted.facts().genTime().toString(), "2026-11-22T10:00:00Z",
                accepted.facts().serialNumber(), accepted.facts().policy(), Rfc3161.HASH_ALGORITHM_NAME,
                accepted.facts().nonce(), b64.encodeToString(accepted.tokenDer()),
                accepted.certificates().stream().map(b64::encodeToString).toList()).toJson();
        ObjectNode stampedEntry = EvidenceCorpus.stamp(f, id, "unused", stamped, size);
        entry.set("consistency_proof", stampedEntry.get("consistency_proof"));
        return entry;
    }
}
