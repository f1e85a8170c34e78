package io.trailproof.core.evidence;

import static org.assertj.core.api.Assertions.assertThat;

import io.trailproof.core.evidence.CheckResult.Outcome;
import io.trailproof.core.evidence.EvidenceCorpus.Case;
import io.trailproof.core.evidence.EvidenceReport.Verdict;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Characterizes the offline verifier: over the fixed {@link EvidenceCorpus}, the complete report
 * (its record, the text and the JSON a person and a script read) must be what it was when this test
 * was written, byte for byte. The expectations are one line per package in
 * {@code characterization.tsv} (its verdicts, first failure and a digest of both renderings under two
 * token checkers). A deliberate change of the verifier's wording or results re-records them with
 * {@code -Devidence.characterization.record=true}, and the diff of that file shows which packages
 * changed.
 *
 * <p>The expectations were recorded with the verifier as it was before it was split; while
 * the split was made, a verbatim copy of that verifier was also compared with the new one report for
 * report, real RFC 3161 tokens included (git history: {@code ReferenceEvidenceVerifier}).
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
        // The signed checkpoint needs the log's key, which the corpus runs without: it is skipped
        // everywhere here, and EvidenceCheckpointTest makes it pass and fail. The corpus's events bind to
        // no gate decision: gate_bindings passes everywhere here, and GateBindingsEvidenceTest makes it fail.
        Set<EvidenceCheck> keyless = EnumSet.complementOf(EnumSet.of(EvidenceCheck.CHECKPOINT));
        Set<EvidenceCheck> failing = EnumSet.complementOf(EnumSet.of(EvidenceCheck.CHECKPOINT, EvidenceCheck.GATE_BINDINGS));
        assertThat(failed).as("checks failed somewhere in the corpus").containsExactlyInAnyOrderElementsOf(failing);
        assertThat(passed).as("checks passed somewhere in the corpus").containsExactlyInAnyOrderElementsOf(keyless);
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

    private static String rendered(EvidenceReport r) {
        return EvidenceReportWriter.text(r) + "\n" + EvidenceReportWriter.json(r).toString() + "\n";
    }
}
