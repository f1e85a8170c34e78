package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.evidence.EvidenceReport;
import io.trailproof.core.evidence.EvidenceReportWriter;
import io.trailproof.core.evidence.EvidenceVerifier;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code trailproof erase} against a real server, run in process (the launcher is not what is
 * tested): the confirmation names the count and erases only on y, --yes skips it, bad usage exits 2
 * before any request, and the server's refusals are explained with exit 1 or 2.
 */
class EraseCommandIT {

    private static final String ADMIN = "erase-admin-key";
    private static final String READ = "erase-read-key";

    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {
    }

    /** Runs {@code trailproof erase ...} in process with {@code stdin} as the answer to the question. */
    static Run erase(String stdin, String... args) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Commands commands = new Commands() {
            @Override
            CliCommand create(String name) {
                CliCommand made = super.create(name);
                if (made instanceof EraseCommand e) {
                    e.in = new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8));
                }
                return made;
            }
        };
        List<String> all = new ArrayList<>(List.of("erase"));
        all.addAll(List.of(args));
        int exit = Main.run(commands, new PrintWriter(out, true), new PrintWriter(err, true), all.toArray(String[]::new));
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void confirmsWithTheCountErasesOnYesAndExplainsRefusals() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"), "auth.api-keys",
                ADMIN + ":admin," + READ + ":read")) {
            String url = "http://127.0.0.1:" + server.server().port();
            ServerClient api = new ServerClient(URI.create(url), ADMIN);
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(api.post("/v1/events", bytes("{\"agent_id\":\"subject\",\"session_id\":\"s" + (i % 2)
                        + "\",\"action_type\":\"TOOL_CALL\",\"action_input\":{\"email\":\"person" + i
                        + "@example.org\"}}")).json().get("id").asText());
            }
            String other = api.post("/v1/events", bytes("{\"agent_id\":\"other\",\"action_input\":{\"x\":1}}"))
                    .json().get("id").asText();

            Run declined = erase("n\n", "--server", url, "--api-key", ADMIN, "--agent-id", "subject",
                    "--reason", "data subject request 7");
            assertThat(declined.exit()).as(declined.err()).isEqualTo(1);
            assertThat(declined.err()).contains("This erases the content of 3 events")
                    .contains("[y/N]").contains("nothing was erased");
            assertThat(event(api, ids.get(0)).has("erased")).isFalse();
            Run eof = erase("", "--server", url, "--api-key", ADMIN, "--agent-id", "subject", "--reason", "r");
            assertThat(eof.exit()).isEqualTo(1);
            assertThat(event(api, ids.get(0)).has("erased")).isFalse();

            Run noSelector = erase("", "--server", url, "--api-key", ADMIN, "--reason", "r");
            assertThat(noSelector.exit()).isEqualTo(2);
            assertThat(noSelector.err()).contains("exactly one of --event, --agent-id or --query");
            Run two = erase("", "--server", url, "--api-key", ADMIN, "--event", ids.get(0), "--agent-id", "subject",
                    "--reason", "r");
            assertThat(two.exit()).isEqualTo(2);
            Run filtered = erase("", "--server", url, "--api-key", ADMIN, "--event", ids.get(0), "--since",
                    "2026-01-01", "--reason", "r");
            assertThat(filtered.exit()).isEqualTo(2);
            assertThat(filtered.err()).contains("--event takes no filters");
            Run noReason = erase("", "--server", url, "--api-key", ADMIN, "--event", ids.get(0));
            assertThat(noReason.exit()).isEqualTo(2);
            Run badField = erase("y\n", "--server", url, "--api-key", ADMIN, "--event", ids.get(0), "--fields",
                    "agent_id", "--reason", "r");
            assertThat(badField.exit()).isEqualTo(2);
            assertThat(badField.err()).contains("fields may name").contains("HTTP 400");
            Run unknown = erase("y\n", "--server", url, "--api-key", ADMIN, "--event",
                    "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00", "--reason", "r");
            assertThat(unknown.exit()).isEqualTo(1);
            assertThat(unknown.err()).contains("no event with id 019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00").contains("HTTP 404");
            Run forbidden = erase("y\n", "--server", url, "--api-key", READ, "--agent-id", "subject", "--reason", "r");
            assertThat(forbidden.exit()).isEqualTo(1);
            assertThat(forbidden.err()).contains("HTTP 403");
            assertThat(event(api, ids.get(0)).has("erased")).isFalse();

            Run dry = erase("", "--server", url, "--api-key", ADMIN, "--agent-id", "subject", "--session-id", "s0",
                    "--reason", "r", "--dry-run");
            assertThat(dry.exit()).isZero();
            assertThat(dry.out()).contains("would erase the content of 2 events");

            Run yes = erase("y\n", "--server", url, "--api-key", ADMIN, "--agent-id", "subject", "--session-id", "s0",
                    "--fields", "action_input", "--reason", "data subject request 7");
            assertThat(yes.exit()).as(yes.err()).isZero();
            assertThat(yes.err()).contains("This erases the content of 2 events: action_input.");
            assertThat(yes.out()).contains("erased the content of 2 events: erasure ");
            JsonNode erased = event(api, ids.get(0));
            assertThat(erased.at("/erased/fields/0").asText()).isEqualTo("action_input");
            assertThat(erased.has("action_input")).isFalse();
            assertThat(erased.get("action_type").asText()).isEqualTo("TOOL_CALL");
            assertThat(event(api, ids.get(1)).has("erased")).isFalse();

            Run again = erase("", "--server", url, "--api-key", ADMIN, "--agent-id", "subject", "--session-id", "s0",
                    "--reason", "r");
            assertThat(again.exit()).isEqualTo(1);
            assertThat(again.err()).contains("nothing to erase").contains("2 already erased")
                    .contains("nothing was erased or recorded");
            Run typo = erase("", "--server", url, "--api-key", ADMIN, "--agent-id", "subjetc", "--yes", "--reason", "r");
            assertThat(typo.exit()).isEqualTo(1);
            assertThat(typo.err()).contains("nothing to erase").contains("nothing was erased or recorded");
            assertThat(typo.out()).isEmpty();
            Run typoDry = erase("", "--server", url, "--api-key", ADMIN, "--query", "no-such-word", "--dry-run",
                    "--reason", "r");
            assertThat(typoDry.exit()).isZero();
            assertThat(typoDry.out()).contains("would erase the content of 0 events");
            // The API itself: a selector that matches nothing is a 404, one that matches only erased
            // events a 409, and neither leaves an erasure event behind.
            long erasuresBefore = api.get("/v1/admin/erasures").json().size();
            ServerClient.Answer none = api.post("/v1/admin/erasures",
                    bytes("{\"agent_id\":\"subjetc\",\"reason\":\"r\"}"));
            assertThat(none.status()).isEqualTo(404);
            assertThat(none.error()).contains("matches no event").contains("nothing was erased or recorded");
            ServerClient.Answer noHit = api.post("/v1/admin/erasures", bytes("{\"q\":\"no-such-word\",\"reason\":\"r\"}"));
            assertThat(noHit.status()).isEqualTo(404);
            ServerClient.Answer onlyErased = api.post("/v1/admin/erasures",
                    bytes("{\"agent_id\":\"subject\",\"session_id\":\"s0\",\"reason\":\"r\"}"));
            assertThat(onlyErased.status()).isEqualTo(409);
            assertThat(onlyErased.error()).contains("(2) is erased already").contains("nothing was erased or recorded");
            assertThat(api.get("/v1/admin/erasures").json().size()).isEqualTo(erasuresBefore);
            assertThat(api.get("/v1/verify?agent_id=subject").json().get("valid").asBoolean()).isTrue();

            Run json = erase("", "--server", url, "--api-key", ADMIN, "--event", ids.get(1) + "," + other, "--yes",
                    "--reason", "r", "--json");
            assertThat(json.exit()).as(json.err()).isZero();
            assertThat(json.err()).doesNotContain("[y/N]");
            JsonNode answer = ServerClient.JSON.readTree(json.out());
            assertThat(answer.get("erased").asInt()).isEqualTo(2);
            assertThat(event(api, other).at("/erased/erasure_id").asText()).isEqualTo(answer.get("erasure_id").asText());
            assertThat(event(api, ids.get(2)).at("/erased/erasure_id").asText())
                    .isEqualTo(erased.at("/erased/erasure_id").asText());

            JsonNode list = api.get("/v1/admin/erasures").json();
            assertThat(list).hasSize(2);
            assertThat(list.get(0).at("/action_input/reason").asText()).isEqualTo("r");
            assertThat(list.get(1).at("/action_input/reason").asText()).isEqualTo("data subject request 7");

            // The evidence package carries the erased events as stored and the erasures that name them.
            ServerClient.Answer export = api.get("/v1/export?agent_id=subject");
            assertThat(export.ok()).isTrue();
            EvidenceReport report = new EvidenceVerifier().verify(new ByteArrayInputStream(export.body()));
            assertThat(report.verdict()).as(EvidenceReportWriter.text(report)).isEqualTo(EvidenceReport.Verdict.VALID);
            assertThat(EvidenceReportWriter.statements(report))
                    .anySatisfy(s -> assertThat(s).startsWith("2 events erased (erasure " + list.get(1).get("id").asText()
                            + " at " + list.get(1).get("recorded_at").asText() + ": data subject request 7)"))
                    .anySatisfy(s -> assertThat(s).startsWith("1 event erased (erasure " + list.get(0).get("id").asText()));
            assertThat(export.text()).doesNotContain("@example.org");
        }
        Run down = erase("y\n", "--server", "http://127.0.0.1:1", "--agent-id", "a", "--reason", "r");
        assertThat(down.exit()).isEqualTo(1);
        assertThat(down.err()).contains("cannot reach");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode event(ServerClient api, String id) throws Exception {
        return api.get("/v1/events/" + id).json();
    }
}
