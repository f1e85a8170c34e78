package io.trailproof.cli;

import io.trailproof.testing.Api;
import io.trailproof.testing.Cli;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code trailproof search QUERY} against a running server (in this JVM: the launcher has LauncherIT). */
class SearchCommandIT {

    @TempDir
    Path dir;

    record Run(int exit, String out) {
    }

    /** Standard output, then standard error. */
    static Run trailproof(String... args) {
        Cli.Run run = Cli.run(args);
        return new Run(run.exit(), run.out() + run.err());
    }

    @Test
    void printsATableOrTheRawAnswerAndExplainsErrors() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"))) {
            Api api = server.api();
            api.post("/v1/batch", """
                    [{"agent_id":"agent-007","action_type":"TOOL_CALL","action_name":"search_database",
                      "action_input":{"q":"quarterly revenue"},"labels":{"env":"prod"},"timestamp":"2026-01-05T10:00:00Z"},
                     {"agent_id":"agent-008","action_type":"TOOL_CALL","action_input":{"q":"revenue forecast"},
                      "labels":{"env":"dev"},"timestamp":"2026-01-06T10:00:00Z"}]""");
            String url = "http://127.0.0.1:" + server.server().port();
            Run table = trailproof("search", "revenue", "--server", url, "--label", "env=prod");
            assertThat(table.exit()).as(table.out()).isZero();
            assertThat(table.out()).contains("TIMESTAMP").contains("agent-007").contains("TOOL_CALL search_database")
                    .contains("input: quarterly [revenue]").contains("1 result(s), showing 1-1").doesNotContain("agent-008");
            Run json = trailproof("search", "revenue", "--server", url, "--json", "--sort", "-timestamp", "--limit", "1");
            assertThat(json.exit()).isZero();
            var body = Api.JSON.readTree(json.out().substring(json.out().indexOf('{')));
            assertThat(body.get("total").asInt()).isEqualTo(2);
            assertThat(body.get("results").get(0).get("agent_id").asText()).isEqualTo("agent-008");
            Run bad = trailproof("search", "(revenue", "--server", url);
            assertThat(bad.exit()).isEqualTo(2);
            assertThat(bad.out()).contains("query syntax error").contains("HTTP 400");
            Run since = trailproof("search", "revenue", "--server", url, "--since", "2026-01-06");
            assertThat(since.out()).contains("agent-008").doesNotContain("agent-007");
        }
        Run down = trailproof("search", "x", "--server", "http://127.0.0.1:1");
        assertThat(down.exit()).isEqualTo(1);
        assertThat(down.out()).contains("cannot reach");
    }
}
