package io.trailproof.index;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What any key can send in a query cannot hurt the service (src/site/search.md#bounds), on the real
 * server: an event with more distinct words than a query may have clauses, a regular expression
 * whose automaton would be huge, parentheses nested thousands deep on every path that takes
 * {@code q}, a range on a text field.
 */
class QueryBoundsIT {

    @TempDir
    static Path dir;
    static InProcessServer server;
    static Api api;
    static String wideId;

    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"));
        api = server.api();
        StringBuilder words = new StringBuilder();
        for (int i = 0; i < 1_100; i++) {
            words.append("w").append(i).append(' ');
        }
        Reply r = api.post("/v1/events", "{\"agent_id\":\"wide\",\"action_type\":\"TOOL_RESULT\",\"action_name\":\"scan\","
                + "\"action_input\":{\"q\":\"weather\"},\"action_output\":{\"text\":\"" + words + "\"}}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        wideId = r.json().get("id").asText();
        assertThat(api.post("/v1/events", "{\"agent_id\":\"other\",\"action_type\":\"LLM_CALL\",\"action_name\":\"ask\"}")
                .status()).isEqualTo(201);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static String enc(String q) {
        return URLEncoder.encode(q, StandardCharsets.UTF_8);
    }

    private static Reply search(String q) throws Exception {
        return api.get("/v1/search?q=" + enc(q));
    }

    @Test
    void anEventWithMoreWordsThanClausesIsFoundAndHighlightedByPatternsAndRanges() throws Exception {
        for (String q : List.of("*", "output:*", "w*", "output:w1*", "output:[a TO z]", "output:[* TO *]", "/w1[0-9]*/")) {
            Reply r = api.get("/v1/search?agent_id=wide&q=" + enc(q));
            assertThat(r.status()).as(q + ": " + r.body()).isEqualTo(200);
            JsonNode hit = r.json().get("results").get(0);
            assertThat(hit.get("id").asText()).as(q).isEqualTo(wideId);
            assertThat(hit.get("highlights").get("output")).as(q).isNotEmpty();
        }
        Reply r = search("output:*");
        JsonNode highlights = r.json().get("results").get(0).get("highlights");
        assertThat(highlights.fieldNames()).toIterable().containsExactly("output");
    }

    @Test
    void aRangeOnATextFieldIsAValidSearchOverItsWords() throws Exception {
        Reply r = search("input:[* TO *]");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().get("total").asLong()).isEqualTo(1);
        assertThat(search("input:[a TO v]").json().get("total").asLong()).isZero();
        assertThat(search("input:[v TO x]").json().get("total").asLong()).isEqualTo(1);
    }

    @Test
    void keywordPatternsAreHighlighted() throws Exception {
        Reply r = search("action_type:TOOL_*");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("results").get(0).get("highlights").get("action_type").get(0).asText())
                .isEqualTo("<em>TOOL_RESULT</em>");
    }

    @Test
    void aHugeRegularExpressionIsRefusedAtOnce() throws Exception {
        long start = System.nanoTime();
        Reply r = search("/.{0,32000}/");
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().get("error").asText()).contains("too large to run").contains("2000");
        // Refused by measuring the expression, not by building it: building took 30 s and more.
        assertThat((System.nanoTime() - start) / 1_000_000_000).isLessThan(15);
        assertThat(api.get("/v1/search?q=" + enc("/.{0,32000}/") + "&format=csv").status()).isEqualTo(400);
    }

    @Test
    void deepNestingIsA400OnEveryPathThatTakesAQuery() throws Exception {
        String deep = "(".repeat(3_000) + "a" + ")".repeat(3_000);
        String q = enc(deep);
        for (String path : List.of("/v1/search?q=" + q, "/v1/search?q=" + q + "&format=ndjson",
                "/v1/search?q=" + q + "&format=csv", "/v1/search?q=" + q + "&facets=agent_id&histogram=P1D",
                "/v1/stream?q=" + q)) {
            Reply r = api.get(path);
            assertThat(r.status()).as(path.substring(0, 30) + ": " + r.body()).isEqualTo(400);
            assertThat(r.body()).as(path.substring(0, 30)).contains("more than 64 levels deep");
        }
        Reply erase = api.post("/v1/admin/erasures", "{\"q\":\"" + deep + "\",\"reason\":\"probe\",\"dry_run\":true}");
        assertThat(erase.status()).as(erase.body()).isEqualTo(400);
        assertThat(erase.body()).contains("more than 64 levels deep");
        String ok = "(".repeat(64) + "weather" + ")".repeat(64);
        assertThat(search(ok).json().get("total").asLong()).isEqualTo(1);
    }

    private static double searchesCancelled() throws Exception {
        for (String line : api.get("/metrics").body().split("\n")) {
            if (line.startsWith("trailproof_searches_cancelled_total ")) {
                return Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim());
            }
        }
        throw new AssertionError("no trailproof_searches_cancelled_total in /metrics");
    }

    /**
     * A search whose client closed its connection before the answer is cancelled, not run: the
     * index is held behind the log so the request waits, the client sends it and closes, and once
     * the index catches up the search finds its client gone (counted in /metrics).
     */
    @Test
    void aSearchWhoseClientHasGoneIsCancelled() throws Exception {
        double before = searchesCancelled();
        try (AutoCloseable held = server.server().searchIndex().holdFollower()) {
            assertThat(api.post("/v1/events", "{\"agent_id\":\"late\",\"action_name\":\"weather\"}").status())
                    .isEqualTo(201);
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.server().port())) {
                client.getOutputStream().write(("GET /v1/search?q=weather HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                client.getOutputStream().flush();
            }
        }
        Await.untilTrue("the search of the client that left is cancelled", Duration.ofSeconds(60),
                () -> searchesCancelled() == before + 1);
        // The connections of clients that stay are not disturbed.
        Reply r = api.get("/v1/search?q=weather&agent_id=late");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("total").asLong()).isEqualTo(1);
        assertThat(searchesCancelled()).isEqualTo(before + 1);
    }

    /**
     * Looking at the connection for a client that left takes nothing from a client that stays: a
     * second request sent on the same connection while the first waits (HTTP/1.1 pipelining) is
     * answered after the first, whole.
     */
    @Test
    void aPipelinedRequestBehindAWatchedSearchIsAnsweredWhole() throws Exception {
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.server().port())) {
            client.setSoTimeout(60_000);
            try (AutoCloseable held = server.server().searchIndex().holdFollower()) {
                assertThat(api.post("/v1/events", "{\"agent_id\":\"piped\",\"action_name\":\"weather\"}").status())
                        .isEqualTo(201);
                client.getOutputStream().write(("GET /v1/search?q=weather&agent_id=piped HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                client.getOutputStream().flush();
                client.getOutputStream().write(("GET /v1/events?agent_id=piped HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                client.getOutputStream().flush();
            }
            String answers = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answers.split("HTTP/1.1 200", -1)).as(answers).hasSize(3);
            assertThat(answers).contains("\"total\":1").contains("\"agent_id\":\"piped\"");
        }
    }
}
