package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code facets=}, {@code histogram=} and {@code format=ndjson|csv} (src/site/console.md) against the real server. */
class SearchSummariesIT {

    @TempDir
    Path dir;

    private static final Instant BASE = Instant.parse("2026-05-04T00:00:00Z");

    /** 600 events over 7 agents, 3 statuses-and-sources, labels on some, timestamps over two days. */
    private static void ingest(Api api) throws Exception {
        Random rnd = new Random(15);
        for (int batch = 0; batch < 3; batch++) {
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < 200; i++) {
                b.append(i == 0 ? "" : ",").append("{\"agent_id\":\"agent-").append(rnd.nextInt(7))
                        .append("\",\"action_type\":\"").append(rnd.nextBoolean() ? "TOOL_CALL" : "LLM_CALL")
                        .append("\",\"action_status\":\"").append(rnd.nextInt(4) == 0 ? "error" : "success")
                        .append("\",\"source\":\"").append(rnd.nextBoolean() ? "sdk" : "otlp")
                        .append("\",\"action_name\":\"").append(rnd.nextBoolean() ? "refund order" : "look up order")
                        .append("\",\"timestamp\":\"").append(BASE.plusSeconds(rnd.nextInt(2 * 86_400)))
                        .append("\",\"labels\":").append(rnd.nextBoolean() ? "{\"env\":\"prod\"}" : "{}").append('}');
            }
            assertThat(api.post("/v1/batch", b.append(']').toString()).status()).isEqualTo(201);
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static List<String> lines(String body) {
        return body.isEmpty() ? List.of() : List.of(body.split("\n", -1)).subList(0, body.split("\n", -1).length - 1);
    }

    @Test
    void facetsAndHistogramCountEveryMatchExactly() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            Api api = s.api();
            ingest(api);
            JsonNode answer = api.get("/v1/search?q=refund&limit=3&facets=agent_id,action_status,source,label.env,"
                    + "label.nobody&histogram=PT1H").json();
            long total = answer.get("total").asLong();
            assertThat(answer.get("results")).hasSize(3);
            // every match, through the streamed form of the same search
            Reply all = api.get("/v1/search?q=refund&format=ndjson");
            assertThat(all.status()).isEqualTo(200);
            assertThat(all.header("Content-Type")).isEqualTo("application/x-ndjson");
            assertThat(all.header("X-Total-Count")).isEqualTo(Long.toString(total));
            List<JsonNode> matches = new ArrayList<>();
            for (String line : lines(all.body())) {
                matches.add(Api.JSON.readTree(line));
            }
            assertThat(matches).hasSize((int) total);
            for (String field : List.of("agent_id", "action_status", "source")) {
                Map<String, Long> expected = new HashMap<>();
                matches.forEach(m -> expected.merge(m.get(field).asText(), 1L, Long::sum));
                Map<String, Long> got = new HashMap<>();
                answer.get("facets").get(field).forEach(v -> got.put(v.get("value").asText(), v.get("count").asLong()));
                assertThat(got).as(field).isEqualTo(expected);
            }
            long prod = matches.stream().filter(m -> m.path("labels").has("env")).count();
            assertThat(answer.get("facets").get("label.env")).hasSize(1);
            assertThat(answer.get("facets").get("label.env").get(0).get("count").asLong()).isEqualTo(prod);
            assertThat(answer.get("facets").get("label.nobody")).isEmpty();
            // counts descend
            List<Long> counts = new ArrayList<>();
            answer.get("facets").get("agent_id").forEach(v -> counts.add(v.get("count").asLong()));
            assertThat(counts).isSortedAccordingTo((a, b) -> Long.compare(b, a));

            JsonNode histogram = answer.get("histogram");
            long sum = 0;
            Instant previous = null;
            for (JsonNode bucket : histogram) {
                Instant start = Instant.parse(bucket.get("start").asText());
                assertThat(start.getEpochSecond() % 3600).isZero();
                if (previous != null) {
                    assertThat(start).isEqualTo(previous.plusSeconds(3600)); // empty buckets included
                }
                previous = start;
                sum += bucket.get("count").asLong();
            }
            assertThat(sum).isEqualTo(total);
            assertThat(histogram.get(0).get("count").asLong()).isPositive();
            assertThat(histogram.get(histogram.size() - 1).get("count").asLong()).isPositive();
            // without facets or histogram the answer has neither field
            JsonNode plain = api.get("/v1/search?q=refund&limit=1").json();
            assertThat(plain.has("facets")).isFalse();
            assertThat(plain.has("histogram")).isFalse();
        }
    }

    @Test
    void aFacetValueOrAHistogramBucketNarrowsTheSearch() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            Api api = s.api();
            ingest(api);
            JsonNode answer = api.get("/v1/search?q=order&facets=action_status,source&histogram=P1D").json();
            JsonNode error = answer.get("facets").get("action_status").findValues("value").stream()
                    .filter(v -> v.asText().equals("error")).findFirst().orElseThrow();
            long errors = 0;
            for (JsonNode v : answer.get("facets").get("action_status")) {
                if (v.get("value").asText().equals("error")) {
                    errors = v.get("count").asLong();
                }
            }
            assertThat(error.asText()).isEqualTo("error");
            assertThat(api.get("/v1/search?q=order&action_status=error&limit=1").json().get("total").asLong())
                    .isEqualTo(errors);
            assertThat(api.get("/v1/events?action_status=error&limit=1").header("X-Total-Count"))
                    .isEqualTo(Long.toString(errors));
            long otlp = 0;
            for (JsonNode v : answer.get("facets").get("source")) {
                if (v.get("value").asText().equals("otlp")) {
                    otlp = v.get("count").asLong();
                }
            }
            assertThat(api.get("/v1/events?source=otlp&limit=1").header("X-Total-Count")).isEqualTo(Long.toString(otlp));
            JsonNode day = answer.get("histogram").get(0);
            Instant start = Instant.parse(day.get("start").asText());
            assertThat(api.get("/v1/search?q=order&limit=1&since=" + enc(start.toString()) + "&until="
                    + enc(start.plusSeconds(86_400).toString())).json().get("total").asLong())
                    .isEqualTo(day.get("count").asLong());
        }
    }

    @Test
    void streamedRowsComeInTheOrderOfTheJsonAnswer() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            Api api = s.api();
            ingest(api);
            for (String query : List.of("/v1/search?q=order", "/v1/search?q=refund&sort=timestamp",
                    "/v1/search?q=refund%20OR%20agent-3&sort=-timestamp", "/v1/events?order=asc", "/v1/events?order=desc",
                    "/v1/events?agent_id=agent-2")) {
                List<String> ids = new ArrayList<>();
                for (int offset = 0; ; offset += 100) {
                    JsonNode page = api.get(query + "&limit=100&offset=" + offset).json();
                    JsonNode results = page.isArray() ? page : page.get("results");
                    results.forEach(r -> ids.add(r.get("id").asText()));
                    if (results.size() < 100) {
                        break;
                    }
                }
                List<String> ndjson = lines(api.get(query + "&format=ndjson&limit=5&offset=7").body()).stream()
                        .map(l -> {
                            try {
                                return Api.JSON.readTree(l).get("id").asText();
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        }).toList();
                assertThat(ndjson).as(query).isEqualTo(ids);
                Reply csv = api.get(query + "&format=csv");
                assertThat(csv.header("Content-Type")).startsWith("text/csv");
                assertThat(csv.header("X-Total-Count")).isEqualTo(Integer.toString(ids.size()));
                String[] rows = csv.body().split("\r\n", -1);
                assertThat(rows[0]).isEqualTo("log_index,id,timestamp,agent_id,sequence,action_type,action_name,"
                        + "action_status,duration_ms,hash,erased");
                assertThat(rows).hasSize(ids.size() + 2); // header, rows, and the empty string after the last CRLF
                assertThat(Stream.of(rows).skip(1).limit(ids.size()).map(r -> r.split(",")[1]).toList()).isEqualTo(ids);
            }
        }
    }

    @Test
    void badParametersAre400sAndNamedTheirFault() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            Api api = s.api();
            ingest(api);
            Map<String, String> cases = Map.of(
                    "/v1/search?q=order&facets=hash", "cannot be counted",
                    "/v1/search?q=order&facets=agent_id,agent_id", "twice",
                    "/v1/search?q=order&histogram=P1M", "months and years",
                    "/v1/search?q=order&histogram=soon", "ISO 8601 duration",
                    "/v1/search?q=order&histogram=PT1S", "the limit is 10000",
                    "/v1/search?q=order&format=xml", "json, ndjson or csv",
                    "/v1/search?q=order&format=csv&facets=agent_id", "facets and histogram are part of the JSON answer",
                    "/v1/events?facets=agent_id", "unknown parameter facets");
            for (Map.Entry<String, String> c : cases.entrySet()) {
                Reply r = api.get(c.getKey());
                assertThat(r.status()).as(c.getKey()).isEqualTo(400);
                assertThat(r.json().get("error").asText()).as(c.getKey()).contains(c.getValue());
            }
        }
    }

    @Test
    void aStreamedAnswerStopsAtOneHundredThousandRowsAndSaysHowManyMatched() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            Api api = s.api();
            int n = StreamedMatches.MAX_ROWS + 25;
            for (int from = 0; from < n; from += 1000) {
                StringBuilder b = new StringBuilder("[");
                for (int i = from; i < Math.min(n, from + 1000); i++) {
                    b.append(i == from ? "" : ",").append("{\"agent_id\":\"bulk\",\"metadata\":{\"i\":").append(i)
                            .append("}}");
                }
                assertThat(api.post("/v1/batch", b.append(']').toString()).status()).isEqualTo(201);
            }
            HttpResponse<InputStream> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(api.base() + "/v1/events?format=ndjson")).build(), HttpResponse.BodyHandlers.ofInputStream());
            assertThat(r.headers().firstValue("X-Total-Count")).hasValue(Integer.toString(n));
            long lines = 0;
            String first = null;
            try (var reader = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    if (first == null) {
                        first = line;
                    }
                    lines++;
                }
            }
            assertThat(lines).isEqualTo(StreamedMatches.MAX_ROWS);
            assertThat(Api.JSON.readTree(first).get("log_index").asLong()).isEqualTo(n - 1); // newest first, as JSON
        }
    }
}
