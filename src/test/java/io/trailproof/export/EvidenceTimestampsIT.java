package io.trailproof.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.evidence.CheckResult.Outcome;
import io.trailproof.core.evidence.EvidenceCheck;
import io.trailproof.core.evidence.EvidenceReport;
import io.trailproof.core.evidence.EvidenceReport.TimestampResult;
import io.trailproof.core.evidence.EvidenceReport.Verdict;
import io.trailproof.core.evidence.EvidenceReportWriter;
import io.trailproof.core.evidence.EvidenceVerifier;
import io.trailproof.core.evidence.Rfc3161TokenChecker;
import io.trailproof.core.evidence.TokenChecker.TokenCheck;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.Cli;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.TestTsa;
import io.trailproof.timestamp.TrustAnchors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;

/**
 * Timestamps inside evidence packages (src/site/evidence-format.md), end to end: a real server stamps its root twice
 * with a real RFC 3161 TSA (BouncyCastle in this JVM, with its own test CA), exports whole chains and
 * slices, and the packaged {@code verify-export} and the library verifier check them offline.
 *
 * <p>The log: alpha 1..5 and mid 1..2 (with beta between), stamp 1 at T1; more beta and mid 3..4,
 * stamp 2 at T2; then mid 5 and late 1..3, never stamped.
 */
class EvidenceTimestampsIT {

    private static final String TSA_NAME = "CN=Trailproof Test TSA";

    @TempDir
    static Path dir;
    static TestTsa tsa;
    static Path caPem;
    static InProcessServer server;
    static Api api;
    static Instant t1;
    static Instant t2;
    static JsonNode stamp1;
    static JsonNode stamp2;
    static Rfc3161TokenChecker trustingTheTestCa;

    @BeforeAll
    static void start() throws Exception {
        tsa = TestTsa.start();
        caPem = tsa.writeRootPem(dir.resolve("test-ca.pem"));
        server = InProcessServer.start(dir.resolve("data"), "timestamp.default-tsa-url", tsa.url(),
                "timestamp.trust-anchors", caPem.toString());
        api = server.api();
        t1 = Instant.now().minus(2, ChronoUnit.HOURS).truncatedTo(ChronoUnit.SECONDS);
        t2 = t1.plus(1, ChronoUnit.HOURS);

        for (int i = 1; i <= 5; i++) {
            post("alpha", i);
            post("beta", i);
        }
        post("mid", 1);
        post("mid", 2);
        tsa.genTime(t1);
        stamp1 = stamp();
        for (int i = 6; i <= 8; i++) {
            post("beta", i);
        }
        post("mid", 3);
        post("mid", 4);
        tsa.genTime(t2);
        stamp2 = stamp();
        post("mid", 5);
        for (int i = 1; i <= 3; i++) {
            post("late", i);
        }
        trustingTheTestCa = new Rfc3161TokenChecker(TrustAnchors.jdkPlus(List.of(caPem)), null);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        tsa.close();
    }

    /** The agent's event {@code day}, dated 2026-01-{day}. */
    private static void post(String agent, int day) throws Exception {
        Reply r = api.post("/v1/events", "{\"agent_id\":\"" + agent + "\",\"action_name\":\"step " + day
                + "\",\"timestamp\":\"2026-01-" + String.format("%02d", day) + "T12:00:00Z\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }

    private static JsonNode stamp() throws Exception {
        Reply r = api.post("/v1/timestamp", "{}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json();
    }

    private static Reply export(String query) throws Exception {
        Reply r = api.get("/v1/export?" + query);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r;
    }

    private static EvidenceReport verify(String body) {
        return new EvidenceVerifier(trustingTheTestCa).verify(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    }

    private static EvidenceReport verify(JsonNode pack) {
        return verify(pack.toString());
    }

    private static List<String> ids(JsonNode pack) {
        return pack.get("timestamps").findValuesAsText("id");
    }

    private static String existed(String events, String agent, Instant genTime) {
        return events + " of agent " + agent + " existed no later than " + genTime + " (TSA " + TSA_NAME + ")";
    }

    private static Path save(String name, String body) throws Exception {
        return Files.writeString(dir.resolve(name), body);
    }

    private static TokenCheck check(TimestampResult t, String name) {
        if (name.equals("consistency")) {
            return t.consistency();
        }
        return t.token().checks().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aWholeChainCarriesTheEarliestCoveringAndTheLatestTimestampAndVerifiesWithTheTestCa() throws Exception {
        Reply r = export("agent_id=alpha");
        JsonNode pack = r.json();
        long size = pack.get("tree_size").asLong();
        assertThat(ids(pack)).containsExactly(stamp1.get("id").asText(), stamp2.get("id").asText());
        for (int i = 0; i < 2; i++) {
            JsonNode entry = pack.get("timestamps").get(i);
            JsonNode stored = i == 0 ? stamp1 : stamp2;
            // The stored record as the API serves it, plus the consistency proof the API also serves.
            ObjectNode withoutProof = entry.deepCopy();
            withoutProof.remove("consistency_proof");
            assertThat(withoutProof).isEqualTo(stored);
            JsonNode cp = entry.get("consistency_proof");
            long from = stored.get("tree_size").asLong();
            assertThat(cp.get("from").asLong()).isEqualTo(from);
            assertThat(cp.get("to").asLong()).isEqualTo(size);
            assertThat(cp.get("proof")).isEqualTo(api.get("/v1/merkle/consistency?from=" + from + "&to=" + size)
                    .json().get("proof"));
        }

        Path file = save("alpha.json", r.body());
        Cli.Run ok = Cli.run("verify-export", file.toString(), "--trust-anchors", caPem.toString());
        assertThat(ok.exit()).as(ok.toString()).isZero();
        assertThat(ok.out()).contains("Evidence package: VALID")
                .contains(existed("Events 1..5", "alpha", t1))
                .doesNotContain("existed no later than " + t2) // the later time of the same events says less
                .contains("PASS  timestamps");

        Cli.Run json = Cli.run("verify-export", file.toString(), "--trust-anchors", caPem.toString(), "--json");
        assertThat(json.exit()).as(json.toString()).isZero();
        JsonNode report = Api.JSON.readTree(json.out());
        assertThat(report.get("valid").asBoolean()).isTrue();
        assertThat(report.get("statements").toString()).contains(existed("Events 1..5", "alpha", t1));
        assertThat(report.get("timestamps")).hasSize(2);
        assertThat(report.get("timestamps").get(0).get("proven").asBoolean()).isTrue();
        assertThat(report.get("timestamps").get(0).get("time").asText()).isEqualTo(t1.toString());
        assertThat(report.get("timestamps").get(0).get("covered_through_sequence").asLong()).isEqualTo(5);
        assertThat(report.get("timestamps").get(1).get("time").asText()).isEqualTo(t2.toString());
    }

    @Test
    void withoutTrustAnchorsTheTestTsaFailsTheCertificateChainAndTheMessageSaysWhatToPass() throws Exception {
        Path file = save("alpha-untrusted.json", export("agent_id=alpha").body());
        Cli.Run bad = Cli.run("verify-export", file.toString());
        assertThat(bad.exit()).as(bad.toString()).isEqualTo(1);
        assertThat(bad.out()).contains("Evidence package: INVALID").contains("FAIL  timestamps")
                .contains("certificate_chain").contains("--trust-anchors")
                .doesNotContain("existed no later than");

        Cli.Run json = Cli.run("verify-export", file.toString(), "--json");
        assertThat(json.exit()).isEqualTo(1);
        JsonNode report = Api.JSON.readTree(json.out());
        assertThat(report.get("verdict").asText()).isEqualTo("invalid");
        assertThat(report.get("problem").asText()).contains("certificate_chain").contains("--trust-anchors");
        JsonNode chain = null;
        for (JsonNode c : report.get("timestamps").get(0).get("checks")) {
            if (c.get("check").asText().equals("certificate_chain")) {
                chain = c;
            }
        }
        assertThat(chain).isNotNull();
        assertThat(chain.get("outcome").asText()).isEqualTo("failed");
        assertThat(chain.get("detail").asText()).contains("--trust-anchors");
    }

    @Test
    void aSliceWhoseLastEventIsInTheFirstStampedTreeIsProvenByTheFirstTimestamp() throws Exception {
        JsonNode pack = export("agent_id=mid&since=2026-01-01T00:00:00Z&until=2026-01-03T00:00:00Z").json();
        assertThat(pack.get("chain").get("last_sequence").asLong()).isEqualTo(2);
        assertThat(ids(pack)).containsExactly(stamp1.get("id").asText(), stamp2.get("id").asText());
        EvidenceReport report = verify(pack);
        assertThat(report.verdict()).as(EvidenceReportWriter.text(report)).isEqualTo(Verdict.VALID);
        assertThat(EvidenceReportWriter.statements(report)).anySatisfy(s -> assertThat(s)
                .startsWith(existed("Events 1..2", "mid", t1)));
        assertThat(EvidenceReportWriter.statements(report)).noneSatisfy(s -> assertThat(s).contains("not yet timestamped"));
    }

    @Test
    void whenNoTimestampCoversTheLastEventOnlyTheLatestIsCarriedAndTheRestIsNamed() throws Exception {
        JsonNode pack = export("agent_id=mid").json();
        assertThat(ids(pack)).containsExactly(stamp2.get("id").asText());
        EvidenceReport report = verify(pack);
        assertThat(report.verdict()).as(EvidenceReportWriter.text(report)).isEqualTo(Verdict.VALID);
        assertThat(report.timestamps().get(0).coveredThroughSequence()).isEqualTo(4);
        List<String> statements = EvidenceReportWriter.statements(report);
        assertThat(statements).anySatisfy(s -> assertThat(s).startsWith(existed("Events 1..4", "mid", t2)));
        assertThat(statements).anySatisfy(s -> assertThat(s).startsWith("Event 5 of agent mid is not yet timestamped"));
    }

    @Test
    void aPackageNewerThanEveryTimestampIsValidAndSaysWhichEventsAreNotYetTimestamped() throws Exception {
        Path file = save("late.json", export("agent_id=late").body());
        Cli.Run run = Cli.run("verify-export", file.toString(), "--trust-anchors", caPem.toString());
        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.out()).contains("Evidence package: VALID")
                .contains("Time is not proven: events 1..3 of agent late are not yet timestamped")
                .doesNotContain("existed no later than");
        EvidenceReport report = verify(Files.readString(file));
        assertThat(report.timestamps()).singleElement().satisfies(t -> {
            assertThat(t.id()).isEqualTo(stamp2.get("id").asText());
            assertThat(t.proven()).isTrue();
            assertThat(t.coveredThroughSequence()).isNull();
        });
    }

    @Test
    void aChangedTokenByteFailsTheSignature() throws Exception {
        ObjectNode pack = (ObjectNode) export("agent_id=alpha").json();
        ObjectNode entry = (ObjectNode) pack.get("timestamps").get(0);
        byte[] token = Base64.getDecoder().decode(entry.get("token").asText());
        token[token.length - 1] ^= 0x01; // the last byte of the CMS signature value
        entry.put("token", Base64.getEncoder().encodeToString(token));
        EvidenceReport report = verify(pack);
        assertThat(report.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(report.check(EvidenceCheck.TIMESTAMPS).orElseThrow().outcome()).isEqualTo(Outcome.FAILED);
        TimestampResult t = report.timestamps().get(0);
        assertThat(check(t, "signature").outcome()).isEqualTo(Outcome.FAILED);
        assertThat(check(t, "signature").detail()).contains("signature does not verify");
        assertThat(check(t, "consistency").outcome()).isEqualTo(Outcome.PASSED);
        assertThat(report.timestamps().get(1).proven()).isTrue();
        assertThat(EvidenceReportWriter.statements(report)).noneSatisfy(s -> assertThat(s).contains("existed no later"));
    }

    @Test
    void aChangedTimestampRootFailsTheImprintAndTheConsistency() throws Exception {
        ObjectNode pack = (ObjectNode) export("agent_id=alpha").json();
        ObjectNode entry = (ObjectNode) pack.get("timestamps").get(0);
        String root = entry.get("merkle_root").asText();
        entry.put("merkle_root", (root.charAt(0) == '0' ? "1" : "0") + root.substring(1));
        EvidenceReport report = verify(pack);
        assertThat(report.verdict()).isEqualTo(Verdict.INVALID);
        TimestampResult t = report.timestamps().get(0);
        assertThat(check(t, "message_imprint").outcome()).isEqualTo(Outcome.FAILED);
        assertThat(check(t, "message_imprint").actual()).isEqualTo(root); // what the token really stamps
        assertThat(check(t, "consistency").outcome()).isEqualTo(Outcome.FAILED);
        assertThat(check(t, "signature").outcome()).isEqualTo(Outcome.PASSED);
        assertThat(report.problem()).contains("timestamps failed").contains(stamp1.get("id").asText());
    }

    @Test
    void aChangedConsistencyProofFailsOnlyTheConsistency() throws Exception {
        ObjectNode pack = (ObjectNode) export("agent_id=alpha").json();
        ArrayNode proof = (ArrayNode) pack.get("timestamps").get(0).get("consistency_proof").get("proof");
        assertThat(proof).isNotEmpty();
        String h = proof.get(0).asText();
        String changed = h.substring(0, 10) + (h.charAt(10) == 'a' ? 'b' : 'a') + h.substring(11);
        proof.set(0, proof.textNode(changed));
        EvidenceReport report = verify(pack);
        assertThat(report.verdict()).isEqualTo(Verdict.INVALID);
        TimestampResult t = report.timestamps().get(0);
        assertThat(check(t, "consistency").outcome()).isEqualTo(Outcome.FAILED);
        assertThat(t.token().allPassed()).isTrue();
        assertThat(report.problem()).contains("check consistency");
        // The events and their proofs are untouched: only the timestamps check fails.
        assertThat(report.checks()).filteredOn(c -> c.failed()).extracting(c -> c.check())
                .containsExactly(EvidenceCheck.TIMESTAMPS);
    }
}
