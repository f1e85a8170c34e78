package io.trailproof.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.evidence.CheckResult.Outcome;
import io.trailproof.core.evidence.EvidenceCheck;
import io.trailproof.core.evidence.EvidenceReport;
import io.trailproof.core.evidence.EvidenceReport.Verdict;
import io.trailproof.core.evidence.EvidenceReportWriter;
import io.trailproof.core.evidence.EvidenceVerifier;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.Cli;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code GET /v1/export} and the export / verify / verify-export commands against the real server:
 * packages of interleaved agents, whole and sliced, verify offline; tampered ones name the check.
 */
class EvidenceExportIT {

    @TempDir
    static Path dir;
    static InProcessServer server;
    static Api api;
    static String url;
    /** alpha's stored events, alpha[i] has sequence i + 1. */
    static final List<JsonNode> alpha = new ArrayList<>();
    static long total;

    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"));
        api = server.api();
        url = "http://127.0.0.1:" + server.server().port();
        // alpha's event i is dated 2026-01-(i+1), except event 9 (sequence 10), dated in 2025: it lies
        // inside any slice that spans it, whatever its own timestamp.
        for (int i = 0; i < 20; i++) {
            String ts = i == 9 ? "2025-06-01T00:00:00Z" : String.format("2026-01-%02dT12:00:00Z", i + 1);
            Reply r = api.post("/v1/events", "{\"agent_id\":\"alpha\",\"action_name\":\"step " + i + "\",\"timestamp\":\""
                    + ts + "\",\"action_input\":{\"amount\":" + (i * 10.5) + "},\"labels\":{\"env\":\"prod\"}}");
            assertThat(r.status()).isEqualTo(201);
            alpha.add(r.json());
            api.post("/v1/batch", "[{\"agent_id\":\"beta\"},{\"agent_id\":\"gamma/δ\",\"action_name\":\"x\"}]");
        }
        total = api.get("/v1/stats").json().get("tree_size").asLong();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static EvidenceReport verify(String body) {
        return new EvidenceVerifier().verify(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    }

    private static String today() {
        return LocalDate.now(ZoneOffset.UTC).format(DateTimeFormatter.BASIC_ISO_DATE);
    }

    @Test
    void aWholeChainExportsAndVerifies() throws Exception {
        Reply r = api.get("/v1/export?agent_id=alpha");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).isEqualTo("application/json");
        assertThat(r.header("Content-Disposition")).isIn("attachment; filename=\"evidence-alpha-" + today() + ".json\"",
                "attachment; filename=\"evidence-alpha-" + LocalDate.now(ZoneOffset.UTC).minusDays(1)
                        .format(DateTimeFormatter.BASIC_ISO_DATE) + ".json\"");
        EvidenceReport report = verify(r.body());
        assertThat(report.verdict()).as(EvidenceReportWriter.text(report)).isEqualTo(Verdict.VALID);
        assertThat(report.eventCount()).isEqualTo(20);
        assertThat(report.firstSequence()).isEqualTo(1);
        assertThat(report.lastSequence()).isEqualTo(20);
        assertThat(report.treeSize()).isEqualTo(total);
        assertThat(report.merkleRoot()).isEqualTo(api.get("/v1/merkle/root?tree_size=" + total).json().get("root").asText());

        JsonNode pack = r.json();
        assertThat(pack.get("format").asText()).isEqualTo("trailproof-evidence");
        assertThat(pack.get("timestamps").isEmpty()).isTrue();
        assertThat(pack.get("filter").get("since").isNull()).isTrue();
        // Stored events come out byte for byte as the API returned them.
        for (int i = 0; i < 20; i++) {
            assertThat(pack.get("events").get(i)).isEqualTo(alpha.get(i));
        }
        assertThat(r.body()).contains(api.get("/v1/events/" + alpha.get(3).get("id").asText()).body());
        JsonNode proof = pack.get("merkle_proofs").get(5);
        JsonNode served = api.get("/v1/merkle/proof?event_id=" + alpha.get(5).get("id").asText() + "&tree_size=" + total).json();
        assertThat(proof.get("proof").get("siblings")).isEqualTo(served.get("siblings"));
        assertThat(proof.get("proof").get("leaf_hash")).isEqualTo(served.get("leaf_hash"));
    }

    @Test
    void aSliceRunsFromTheFirstToTheLastEventInTheWindowAndVerifiesOnItsOwn() throws Exception {
        Reply r = api.get("/v1/export?agent_id=alpha&since=2026-01-05T00:00:00Z&until=2026-01-13T00:00:00%2B00:00");
        assertThat(r.status()).isEqualTo(200);
        EvidenceReport report = verify(r.body());
        assertThat(report.verdict()).as(EvidenceReportWriter.text(report)).isEqualTo(Verdict.VALID);
        assertThat(report.firstSequence()).isEqualTo(5);
        assertThat(report.lastSequence()).isEqualTo(12); // sequence 10 (dated 2025) is inside the run
        assertThat(report.eventCount()).isEqualTo(8);
        JsonNode chain = r.json().get("chain");
        assertThat(chain.get("anchor_hash").asText()).isEqualTo(alpha.get(3).get("hash").asText());
        assertThat(chain.get("first_sequence").asLong()).isEqualTo(5);
        assertThat(r.json().get("filter").get("until").asText()).isEqualTo("2026-01-13T00:00:00+00:00");
        assertThat(report.check(EvidenceCheck.WINDOW).orElseThrow().outcome()).isEqualTo(Outcome.PASSED);
    }

    @Test
    void aWindowWithoutEventsIsAValidEmptyPackageThatSaysSo() throws Exception {
        Reply r = api.get("/v1/export?agent_id=alpha&since=2030-01-01T00:00:00Z");
        assertThat(r.status()).isEqualTo(200);
        EvidenceReport report = verify(r.body());
        assertThat(report.verdict()).as(EvidenceReportWriter.text(report)).isEqualTo(Verdict.VALID);
        assertThat(report.eventCount()).isZero();
        assertThat(EvidenceReportWriter.text(report)).contains("contains no events");
        assertThat(r.json().get("chain").get("length").asLong()).isZero();
    }

    @Test
    void badRequestsAreRefusedWithASentence() throws Exception {
        assertError(api.get("/v1/export"), 400, "agent_id is required");
        assertError(api.get("/v1/export?agent_id=nobody"), 404, "no agent with id nobody");
        assertError(api.get("/v1/export?agent_id=alpha&since=yesterday"), 400, "since must be an ISO 8601 date-time");
        assertError(api.get("/v1/export?agent_id=alpha&until=2026-13-01T00:00:00Z"), 400, "until must be");
        assertError(api.get("/v1/export?agent_id=alpha&since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z"), 400,
                "is after until");
        assertError(api.post("/v1/export", "{}"), 405, "not allowed");
    }

    private static void assertError(Reply r, int status, String text) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().get("error").asText()).contains(text);
        assertThat(r.json().size()).isEqualTo(1);
    }

    @Test
    void theFileNameIsSafeWhateverTheAgentId() throws Exception {
        Reply r = api.get("/v1/export?agent_id=gamma/%CE%B4");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Disposition")).matches("attachment; filename=\"evidence-gamma__-\\d{8}\\.json\"");
        assertThat(verify(r.body()).verdict()).isEqualTo(Verdict.VALID);
    }

    @Test
    void tamperedExportsFailNamingTheCheck() throws Exception {
        ObjectNode pack = (ObjectNode) api.get("/v1/export?agent_id=alpha&since=2026-01-03T00:00:00Z").json();
        assertFirstFailure(edit(pack, p -> ((ObjectNode) p.get("events").get(4)).put("action_name", "step X")),
                EvidenceCheck.EVENT_HASHES, 7L);
        assertFirstFailure(edit(pack, p -> ((ArrayNode) p.get("events")).remove(2)), EvidenceCheck.SEQUENCES, 5L);
        assertFirstFailure(edit(pack, p -> ((ObjectNode) p.get("chain")).put("anchor_hash", "f".repeat(64))),
                EvidenceCheck.ANCHOR, 3L);
        assertFirstFailure(edit(pack, p -> p.put("tree_size", total - 1)), EvidenceCheck.INCLUSION_PROOFS, 3L);
    }

    private interface Edit {
        void apply(ObjectNode p);
    }

    private static String edit(ObjectNode pack, Edit e) throws Exception {
        ObjectNode copy = pack.deepCopy();
        e.apply(copy);
        return Api.JSON.writeValueAsString(copy);
    }

    private static void assertFirstFailure(String body, EvidenceCheck check, long sequence) {
        EvidenceReport r = verify(body);
        assertThat(r.verdict()).isEqualTo(Verdict.INVALID);
        assertThat(r.firstFailure().orElseThrow().check()).as(EvidenceReportWriter.text(r)).isEqualTo(check);
        assertThat(r.firstFailure().orElseThrow().sequence()).isEqualTo(sequence);
    }

    @Test
    void theCommandsExportVerifyAndNameWhatFailed() throws Exception {
        Path file = dir.resolve("alpha.json");
        Cli.Run export = Cli.run("export", "--server", url, "--agent-id", "alpha", "-o", file.toString());
        assertThat(export.exit()).as(export.toString()).isZero();
        assertThat(export.out()).contains("wrote 20 events of agent alpha");
        assertThat(Files.exists(dir.resolve("alpha.json.part"))).isFalse();

        Cli.Run ok = Cli.run("verify-export", file.toString());
        assertThat(ok.exit()).as(ok.toString()).isZero();
        assertThat(ok.out()).contains("Evidence package: VALID", "Events 1 to 20 of agent alpha", "not yet timestamped");
        Cli.Run okJson = Cli.run("verify-export", file.toString(), "--json");
        assertThat(okJson.exit()).isZero();
        JsonNode json = Api.JSON.readTree(okJson.out());
        assertThat(json.get("valid").asBoolean()).isTrue();
        assertThat(json.get("checks").size()).isEqualTo(EvidenceCheck.values().length);

        Path bad = dir.resolve("alpha-bad.json");
        Files.writeString(bad, Files.readString(file).replace("\"step 7\"", "\"step 8\""));
        Cli.Run invalid = Cli.run("verify-export", bad.toString());
        assertThat(invalid.exit()).as(invalid.toString()).isEqualTo(1);
        assertThat(invalid.out()).contains("Evidence package: INVALID", "FAIL  event_hashes", "sequence 8", "expected: ",
                "actual: ");
        Cli.Run invalidJson = Cli.run("verify-export", "--json", bad.toString());
        assertThat(invalidJson.exit()).isEqualTo(1);
        assertThat(Api.JSON.readTree(invalidJson.out()).get("problem").asText()).startsWith("event_hashes failed at sequence 8");

        Path cut = dir.resolve("alpha-cut.json");
        byte[] all = Files.readAllBytes(file);
        Files.write(cut, Arrays.copyOf(all, all.length - 100));
        Cli.Run unreadable = Cli.run("verify-export", cut.toString());
        assertThat(unreadable.exit()).as(unreadable.toString()).isEqualTo(2);
        assertThat(unreadable.out()).contains("UNREADABLE", "not valid JSON");
        assertThat(Cli.run("verify-export", dir.resolve("missing.json").toString()).exit()).isEqualTo(2);
        assertThat(Cli.run("verify-export").exit()).isEqualTo(2);

        Cli.Run slice = Cli.run("export", "--server", url, "--agent-id", "alpha", "--since", "2026-01-15T00:00:00Z",
                "--output", dir.resolve("slice.json").toString(), "--json");
        assertThat(slice.exit()).as(slice.toString()).isZero();
        assertThat(Api.JSON.readTree(slice.out()).get("events").asLong()).isEqualTo(6);
        assertThat(Cli.run("verify-export", dir.resolve("slice.json").toString()).exit()).isZero();

        Cli.Run unknown = Cli.run("export", "--server", url, "--agent-id", "nobody", "-o", dir.resolve("n.json").toString());
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.err()).contains("no agent with id nobody");
        assertThat(Files.exists(dir.resolve("n.json"))).isFalse();
        assertThat(Cli.run("export", "--server", url, "--agent-id", "alpha", "--since", "soon").exit()).isEqualTo(2);
    }

    @Test
    void theVerifyCommandReportsTheServerSideCheck() throws Exception {
        Cli.Run ok = Cli.run("verify", "--server", url, "--agent-id", "alpha");
        assertThat(ok.exit()).as(ok.toString()).isZero();
        assertThat(ok.out()).contains("chain of agent alpha is valid: 20 events verified");
        Cli.Run json = Cli.run("verify", "--server", url, "--agent-id", "alpha", "--json");
        assertThat(Api.JSON.readTree(json.out()).get("valid").asBoolean()).isTrue();
        Cli.Run unknown = Cli.run("verify", "--server", url, "--agent-id", "nobody");
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.err()).contains("no agent with id nobody");
        Cli.Run down = Cli.run("verify", "--server", "http://127.0.0.1:1", "--agent-id", "alpha");
        assertThat(down.exit()).isEqualTo(1);
        assertThat(down.err()).contains("cannot reach the trailproof server");
    }
}
