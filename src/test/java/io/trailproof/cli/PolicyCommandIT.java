package io.trailproof.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code trailproof policy check|test}: the table, the JSON and the exit codes (src/site/cli.md, src/site/redaction.md). */
class PolicyCommandIT {

    @TempDir
    Path dir;

    private InProcessServer server;
    private String url;

    private record Run(int exit, String out, String err) {
    }

    @BeforeEach
    void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"));
        url = "http://127.0.0.1:" + server.server().port();
        assertThat(server.api().post("/v1/batch", """
                [{"agent_id":"c1","action_type":"TOOL_CALL","action_name":"fetch","timestamp":"2026-01-05T10:00:00Z"},
                 {"agent_id":"c1","action_type":"TOOL_RESULT","action_name":"fetch","timestamp":"2026-01-05T10:00:01Z"},
                 {"agent_id":"c1","action_type":"TOOL_CALL","action_name":"delete_user","timestamp":"2026-01-05T10:00:02Z","duration_ms":5}]
                """).status()).isEqualTo(201);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(new Commands(), new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(exit, out.toString(), err.toString());
    }

    private Path write(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void builtInsPrintATableAndExitOneWhenAFailRuleFailed() {
        Run r = run("policy", "check", "--server", url);
        assertThat(r.exit()).as(r.toString()).isEqualTo(1);
        assertThat(r.out()).contains("POLICY", "VIOLATIONS", "chain_integrity", "event_completeness")
                .contains("event_completeness / event_completeness: 1 violation")
                .contains("agent c1 seq 3 event ")
                .contains("TOOL_CALL delete_user at sequence 3 has no TOOL_RESULT after it")
                .contains("FAILED: 1 rule of severity fail violated (3 events checked)");

        Run clean = run("policy", "check", "--server", url, "--policy", "chain_integrity");
        assertThat(clean.exit()).as(clean.toString()).isZero();
        assertThat(clean.out()).contains("PASSED");

        Run window = run("policy", "check", "--server", url, "--until", "2026-01-05T10:00:02Z");
        assertThat(window.exit()).as(window.toString()).isZero();
    }

    @Test
    void aDocumentWithWarnAndFailRules() throws Exception {
        Path warn = write("warn.yaml", """
                policies:
                  - name: safety
                    rules:
                      - {name: no-delete, type: absence, severity: warn, deny: delete_user}
                """);
        Run r = run("policy", "check", "--server", url, "--file", warn.toString());
        assertThat(r.exit()).as(r.toString()).isZero(); // warn rules never fail
        assertThat(r.out()).contains("warn", "delete_user must never occur; it did in agent c1");

        Path fail = write("fail.json", "{\"policies\": [{\"name\": \"safety\", \"rules\": [{\"name\": \"no-delete\","
                + " \"type\": \"absence\", \"severity\": \"fail\", \"deny\": \"delete_user\"}]}]}");
        Run json = run("policy", "check", "--server", url, "--file", fail.toString(), "--json", "--agent-id", "c1");
        assertThat(json.exit()).as(json.toString()).isEqualTo(1);
        var answer = new ObjectMapper().readTree(json.out());
        assertThat(answer.get("passed").asBoolean()).isFalse();
        assertThat(answer.get("results").get(0).get("violations").asLong()).isEqualTo(1);
    }

    @Test
    void malformedDocumentsAndBadUsageExitTwo() throws Exception {
        Path bad = write("bad.yaml", """
                policies:
                  - name: safety
                    rules:
                      - {name: limit, type: rate, severity: fail, per: 1m}
                """);
        Run check = run("policy", "check", "--server", url, "--file", bad.toString());
        assertThat(check.exit()).isEqualTo(2);
        assertThat(check.err()).contains("policy 'safety', rule 'limit': the key 'max' is missing");

        Run test = run("policy", "test", "--file", bad.toString());
        assertThat(test.exit()).isEqualTo(2);
        assertThat(test.err()).contains("policy 'safety', rule 'limit': the key 'max' is missing");

        Path good = write("good.yaml", """
                policies:
                  - name: safety
                    rules:
                      - {name: limit, type: rate, severity: fail, per: 1m, max: 10}
                      - {name: hours, type: temporal, severity: warn, hours: [9, 17]}
                """);
        Run valid = run("policy", "test", "--file", good.toString());
        assertThat(valid.exit()).as(valid.toString()).isZero();
        assertThat(valid.out()).contains("valid, 1 policy with 2 rules");

        assertThat(run("policy", "check", "--server", url, "--file", good.toString(), "--policy", "other").exit()).isEqualTo(2);
        assertThat(run("policy", "check", "--server", url, "--policy", "other").exit()).isEqualTo(2);
        assertThat(run("policy", "check", "--server", url, "--since", "last week").exit()).isEqualTo(2);
        assertThat(run("policy", "check", "--server", url, "--file", dir.resolve("missing.yaml").toString()).exit()).isEqualTo(2);
        assertThat(run("policy", "test").exit()).isEqualTo(2);
        assertThat(run("policy", "check", "--server", url, "--agent-id", "ghost").exit()).isEqualTo(1);
    }
}
