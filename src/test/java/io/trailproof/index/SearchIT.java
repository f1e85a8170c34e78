package io.trailproof.index;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/** Every filter, ordering, paging and query-syntax feature of GET /v1/events and GET /v1/search, on the real server. */
class SearchIT {

    @TempDir
    static Path dir;
    static InProcessServer server;
    static Api api;
    /** Event ids by the names used in the tests: e0..e5 in log order. */
    static final List<String> ids = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"));
        api = server.api();
        Reply r = api.post("/v1/batch", """
                [
                 {"agent_id":"a1","action_type":"TOOL_CALL","action_name":"search_database","timestamp":"2026-01-01T10:00:00Z",
                  "labels":{"env":"prod","team":"red"},"action_input":{"q":"quarterly revenue report"},"duration_ms":50},
                 {"agent_id":"a1","action_type":"LLM_CALL","timestamp":"2026-01-01T12:00:00+02:00","labels":{"env":"prod"},
                  "error_message":"connection refused by upstream <proxy> & co","duration_ms":150},
                 {"agent_id":"a2","action_type":"TOOL_CALL","timestamp":"2026-01-02T00:00:00","labels":{"env":"dev","team":"red"},
                  "action_output":{"rows":[{"name":"Alice Müller"}]},"duration_ms":300},
                 {"agent_id":"a2","action_type":"TOOL_CALL","action_name":"send_email","timestamp":"2026-01-15T08:30:00-05:00",
                  "labels":{"env":"prod","team":"blue"},"metadata":{"note":"quarterly numbers"}},
                 {"agent_id":"agent-007","action_type":"PLAN","action_status":"error","timestamp":"2026-02-01T00:00:00Z",
                  "labels":{"env":"prod"},"action_input":{"text":"delete all files"}},
                 {"agent_id":"a1","action_type":"TOOL_CALL","timestamp":"2025-12-31T23:59:59.999999Z","duration_ms":5}
                ]""");
        assertThat(r.status()).isEqualTo(201);
        r.json().forEach(item -> ids.add(item.get("event").get("id").asText()));
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static List<String> names(JsonNode events) {
        List<String> out = new ArrayList<>();
        events.forEach(e -> out.add("e" + ids.indexOf(e.get("id").asText())));
        return out;
    }

    private static Reply list(String query) throws Exception {
        return api.get("/v1/events" + (query.isEmpty() ? "" : "?" + query));
    }

    private static Reply search(String q, String more) throws Exception {
        return api.get("/v1/search?q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + (more.isEmpty() ? "" : "&" + more));
    }

    private static List<String> searchNames(String q) throws Exception {
        Reply r = search(q, "sort=timestamp");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return names(r.json().get("results"));
    }

    @Test
    void aSearchNeedsAQueryAndStarColonStarMatchesEveryEvent() throws Exception {
        Reply absent = api.get("/v1/search");
        assertThat(absent.status()).isEqualTo(400);
        assertThat(absent.json().get("error").asText()).isEqualTo("parameter q is required");
        assertThat(api.get("/v1/search?q=").status()).isEqualTo(400);
        Reply all = search("*:*", "sort=timestamp");
        assertThat(all.status()).isEqualTo(200);
        assertThat(all.json().get("total").asLong()).isEqualTo(ids.size());
    }

    @Test
    void anEventIdIsFoundInEitherCase() throws Exception {
        String id = ids.get(3);
        String upper = id.toUpperCase(Locale.ROOT);
        Reply r = api.get("/v1/events/" + upper);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(api.get("/v1/events/" + id).body());
        Reply proof = api.get("/v1/merkle/proof?event_id=" + upper);
        assertThat(proof.status()).as(proof.body()).isEqualTo(200);
        assertThat(proof.json().get("event_id").asText()).isEqualTo(id);
        assertThat(api.get("/v1/events/" + upper.replace('7', 'G')).status()).isEqualTo(400);
    }

    @Test
    void listsNewestFirstWithTiesByLogIndexAndExactTotal() throws Exception {
        Reply r = list("");
        assertThat(r.status()).isEqualTo(200);
        // e0 and e1 are the same instant (10:00Z and 12:00+02:00): the later log index comes first.
        assertThat(names(r.json())).containsExactly("e4", "e3", "e2", "e1", "e0", "e5");
        assertThat(r.header("X-Total-Count")).isEqualTo("6");
        assertThat(names(list("order=asc").json())).containsExactly("e5", "e0", "e1", "e2", "e3", "e4");
    }

    @Test
    void returnsTheEventsExactlyAsStoredInTheLog() throws Exception {
        Reply one = api.get("/v1/events/" + ids.get(2));
        JsonNode listed = list("agent_id=a2&order=asc").json().get(0);
        assertThat(listed).isEqualTo(one.json());
        assertThat(list("agent_id=a2&order=asc").body()).startsWith("[" + one.body());
    }

    @Test
    void filtersByAgentActionTypeAndLabels() throws Exception {
        Reply r = list("agent_id=a1");
        assertThat(names(r.json())).containsExactly("e1", "e0", "e5");
        assertThat(r.header("X-Total-Count")).isEqualTo("3");
        assertThat(names(list("agent_id=agent-007").json())).containsExactly("e4");
        assertThat(names(list("agent_id=agent").json())).isEmpty();
        assertThat(list("action_type=TOOL_CALL").header("X-Total-Count")).isEqualTo("4");
        assertThat(names(list("action_type=TOOL_CALL&agent_id=a2").json())).containsExactly("e3", "e2");
        assertThat(names(list("label.env=prod&label.team=red").json())).containsExactly("e0");
        assertThat(names(list("label.team=red").json())).containsExactly("e2", "e0");
        assertThat(names(list("label.env=Prod").json())).isEmpty();
    }

    @Test
    void sinceIsInclusiveUntilExclusiveAcrossOffsetsAndNaiveUtc() throws Exception {
        assertThat(names(list("since=2026-01-01T10:00:00Z&until=2026-01-02T00:00:00Z").json())).containsExactly("e1", "e0");
        assertThat(names(list("since=" + URLEncoder.encode("2026-01-01T12:00:00+02:00", StandardCharsets.UTF_8)
                + "&until=2026-01-02T00:00:00").json())).containsExactly("e1", "e0");
        assertThat(names(list("since=2026-01-02T00:00:00").json())).containsExactly("e4", "e3", "e2");
        assertThat(names(list("until=2026-01-01T10:00:00.000001Z").json())).containsExactly("e1", "e0", "e5");
        assertThat(names(list("until=2026-01-01").json())).containsExactly("e5");
        assertThat(names(list("since=2026-01-15T13:30:00Z&until=2026-01-15T13:30:00.000001Z").json()))
                .containsExactly("e3");
    }

    @Test
    void pagesWithLimitAndOffset() throws Exception {
        Reply r = list("limit=2&offset=1");
        assertThat(names(r.json())).containsExactly("e3", "e2");
        assertThat(r.header("X-Total-Count")).isEqualTo("6");
        assertThat(names(list("limit=2&offset=5").json())).containsExactly("e5");
        assertThat(list("offset=100").json()).isEmpty();
        assertThat(list("limit=5000").json()).hasSize(6);
    }

    @Test
    void refusesBadParametersWithAClearMessage() throws Exception {
        for (String bad : List.of("limit=0", "limit=-1", "limit=abc", "limit=1.5", "limit=", "offset=-1",
                "since=yesterday", "until=2026-13-01", "order=up", "agent=a1", "agent_id=", "label.=x",
                "agent_id=a1&agent_id=a2")) {
            Reply r = list(bad);
            assertThat(r.status()).as(bad).isEqualTo(400);
            assertThat(r.json().get("error").asText()).as(bad).isNotBlank().doesNotContain("Exception");
        }
    }

    @Test
    void searchesTermsPhrasesWildcardsFuzzyAndBooleans() throws Exception {
        assertThat(searchNames("revenue")).containsExactly("e0");
        assertThat(searchNames("quarterly")).containsExactly("e0", "e3");
        assertThat(searchNames("\"quarterly revenue\"")).containsExactly("e0");
        assertThat(searchNames("\"revenue quarterly\"")).isEmpty();
        assertThat(searchNames("quart*")).containsExactly("e0", "e3");
        assertThat(searchNames("*venue")).containsExactly("e0");
        assertThat(searchNames("revenu~")).containsExactly("e0");
        assertThat(searchNames("müller")).containsExactly("e2");
        assertThat(searchNames("quarterly AND NOT action_name:send_email")).containsExactly("e0");
        assertThat(searchNames("(revenue OR refused) AND agent_id:a1")).containsExactly("e0", "e1");
        assertThat(searchNames("agent_id:agent-007")).containsExactly("e4");
        assertThat(searchNames("agent_id:agent*")).containsExactly("e4");
        assertThat(searchNames("label.team:red")).containsExactly("e0", "e2");
        assertThat(searchNames("action_status:error")).containsExactly("e4");
        assertThat(searchNames("error_message:upstream")).containsExactly("e1");
        assertThat(searchNames("output:alice")).containsExactly("e2");
        assertThat(searchNames("metadata:numbers")).containsExactly("e3");
        assertThat(searchNames("input:delete")).containsExactly("e4");
        assertThat(searchNames("id:" + ids.get(3))).containsExactly("e3");
    }

    @Test
    void searchesTimeAndNumberRanges() throws Exception {
        assertThat(searchNames("timestamp:[2026-01-01 TO 2026-01-01]")).containsExactly("e0", "e1");
        assertThat(searchNames("timestamp:[2026-01-01 TO 2026-02-01}")).containsExactly("e0", "e1", "e2", "e3");
        assertThat(searchNames("timestamp:[2026-01-01 TO 2026-02-01]")).containsExactly("e0", "e1", "e2", "e3", "e4");
        assertThat(searchNames("timestamp:{2026-01-01 TO *]")).containsExactly("e2", "e3", "e4");
        assertThat(searchNames("timestamp:[2026-01-15T13:30:00Z TO 2026-01-15T08:30:00-05:00]")).containsExactly("e3");
        assertThat(searchNames("timestamp:2026-01-02")).containsExactly("e2");
        assertThat(searchNames("recorded_at:[2000-01-01 TO *]")).hasSize(6);
        assertThat(searchNames("duration_ms:{100 TO *]")).containsExactly("e1", "e2");
        assertThat(searchNames("duration_ms:[* TO 50]")).containsExactly("e5", "e0");
        assertThat(searchNames("sequence:[2 TO 3]")).containsExactly("e5", "e1", "e3");
        assertThat(searchNames("sequence:1 AND label.env:prod")).containsExactly("e0", "e4");
    }

    @Test
    void searchAppliesTheListFiltersAndSorts() throws Exception {
        assertThat(names(search("quarterly", "agent_id=a2").json().get("results"))).containsExactly("e3");
        assertThat(names(search("quarterly", "label.team=red").json().get("results"))).containsExactly("e0");
        assertThat(names(search("quarterly", "since=2026-01-02").json().get("results"))).containsExactly("e3");
        assertThat(names(search("quarterly OR delete", "sort=-timestamp").json().get("results")))
                .containsExactly("e4", "e3", "e0");
        assertThat(names(search("quarterly OR delete", "sort=timestamp&limit=1&offset=1").json().get("results")))
                .containsExactly("e3");
        assertThat(search("x", "sort=newest").status()).isEqualTo(400);
        assertThat(search("x", "order=asc").status()).isEqualTo(400);
    }

    @Test
    void answersTheContractEnvelopeWithScoresAndHighlights() throws Exception {
        Reply r = search("revenue OR refused", "limit=10");
        assertThat(r.status()).isEqualTo(200);
        JsonNode body = r.json();
        assertThat(body.get("query").asText()).isEqualTo("revenue OR refused");
        assertThat(body.get("total").asLong()).isEqualTo(2);
        assertThat(body.get("limit").asInt()).isEqualTo(10);
        assertThat(body.get("offset").asInt()).isZero();
        for (JsonNode result : body.get("results")) {
            assertThat(result.get("score").asDouble()).isPositive();
            assertThat(result.get("hash").asText()).hasSize(64);
        }
        JsonNode e0 = body.get("results").findParents("id").stream()
                .filter(n -> n.get("id").asText().equals(ids.get(0))).findFirst().orElseThrow();
        assertThat(e0.get("highlights").get("input").get(0).asText()).isEqualTo("quarterly <em>revenue</em> report");
        JsonNode e1 = body.get("results").findParents("id").stream()
                .filter(n -> n.get("id").asText().equals(ids.get(1))).findFirst().orElseThrow();
        assertThat(e1.get("highlights").get("error_message").get(0).asText())
                .isEqualTo("connection <em>refused</em> by upstream &lt;proxy&gt; &amp; co");
        JsonNode phrase = search("\"quarterly revenue\" agent_id:a1", "").json().get("results").get(0);
        assertThat(phrase.get("highlights").get("input").get(0).asText())
                .isEqualTo("<em>quarterly</em> <em>revenue</em> report");
        assertThat(phrase.get("highlights").get("agent_id").get(0).asText()).isEqualTo("<em>a1</em>");
        JsonNode wildcard = search("quart*", "sort=timestamp").json().get("results").get(1);
        assertThat(wildcard.get("highlights").get("metadata").get(0).asText()).isEqualTo("<em>quarterly</em> numbers");
    }

    @Test
    void syntaxErrorsSayWhere() throws Exception {
        Reply r = search("(revenue AND", "");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("error").asText()).contains("syntax error").contains("ends too early");
        r = search("revenue AND ) quarterly", "");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("error").asText()).contains("line 1, column 13").contains("')'");
        r = search("\"unterminated phrase", "");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("error").asText()).contains("line 1, column").contains("close the quote");
        System.out.println("syntax error messages: " + search("(revenue AND", "").body() + " "
                + search("revenue AND ) quarterly", "").body() + " " + r.body());
        r = search("timestamp:[yesterday TO *]", "");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("error").asText()).contains("timestamp takes a date");
        r = search("sequence:abc", "");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("error").asText()).contains("sequence takes whole numbers");
        assertThat(api.get("/v1/search").status()).isEqualTo(400);
        assertThat(search("   ", "").status()).isEqualTo(400);
    }

    @Test
    void refusesQueriesThatWouldExpandEnormously() throws Exception {
        Reply r = search("/(a|b)*a(a|b){24}/", "");
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().get("error").asText()).contains("too complex");
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 1100; i++) {
            many.append("t").append(i).append(' ');
        }
        r = search(many.toString(), "");
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().get("error").asText()).contains("clauses");
        assertThat(search("x".repeat(10_001), "").status()).isEqualTo(400);
    }
}
