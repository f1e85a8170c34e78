package io.trailproof.metrics;

import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /metrics} against the real server (src/site/operations.md): every line parses, names keep the
 * conventions, label values stay bounded, and counters move as requests are made.
 */
class MetricsScrapeIT {

    @TempDir
    Path dir;

    @Test
    void everyLineParsesNamesKeepTheConventionsAndCountersMove() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir)) {
            Api api = s.api();
            Map<String, PrometheusText.Family> before = scrape(api);
            checkConventions(before);
            // labelled series appear with their first request; the rest are there from the start
            assertThat(before.keySet()).contains("trailproof_events_ingested_total", "trailproof_log_force_duration_seconds",
                    "trailproof_log_force_group_events", "trailproof_tree_size", "trailproof_index_lag_events",
                    "trailproof_stream_subscribers", "trailproof_idempotent_replays_total", "trailproof_timestamps_total",
                    "trailproof_checkpoints_total", "jvm_memory_used_bytes");
            assertThat(before.keySet()).anyMatch(n -> n.startsWith("jvm_gc_"));

            Api.Reply batch = api.post("/v1/batch", "[{\"agent_id\":\"m-a\"},{\"agent_id\":\"m-a\"},{\"agent_id\":\"m-b\"}]");
            assertThat(batch.status()).isEqualTo(201);
            Api.Reply single = api.post("/v1/events", "{\"agent_id\":\"m-a\",\"action_type\":\"TOOL_CALL\"}");
            assertThat(single.status()).isEqualTo(201);
            String id = single.json().get("id").asText();
            assertThat(api.post("/v1/events", "{\"no_agent\":1}").status()).isEqualTo(400);
            assertThat(api.get("/v1/events/" + id).status()).isEqualTo(200);
            assertThat(api.get("/v1/search?q=agent_id:m-a").status()).isEqualTo(200);
            assertThat(api.get("/no/such/thing").status()).isEqualTo(404);
            int brewed = api.send(HttpRequest.newBuilder(URI.create(api.base() + "/v1/events"))
                    .method("BREW", HttpRequest.BodyPublishers.noBody())).status();
            assertThat(brewed).isEqualTo(405);
            for (int i = 0; i < 2; i++) {
                assertThat(api.send(HttpRequest.newBuilder(URI.create(api.base() + "/v1/events"))
                        .header("Content-Type", "application/json").header("Idempotency-Key", "metrics-it-1")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"agent_id\":\"m-c\"}"))).status()).isEqualTo(201);
            }

            // A request is counted when its exchange completes, which may come just after its client read
            // the answer: the scrape waits until the last of them shows, then every count is checked exactly.
            String brew = Integer.toString(brewed);
            List<Map.Entry<Map<String, String>, Integer>> requests = List.of(
                    Map.entry(Map.of("endpoint", "/v1/batch", "method", "POST", "status", "201"), 1),
                    Map.entry(Map.of("endpoint", "/v1/events", "method", "POST", "status", "201"), 3),
                    Map.entry(Map.of("endpoint", "/v1/events", "method", "POST", "status", "400"), 1),
                    Map.entry(Map.of("endpoint", "/v1/events/{id}", "method", "GET", "status", "200"), 1),
                    Map.entry(Map.of("endpoint", "other", "method", "GET", "status", "404"), 1),
                    // a method a client made up is not a label value of its own
                    Map.entry(Map.of("endpoint", "other", "method", "other", "status", brew), 1));
            AtomicReference<Map<String, PrometheusText.Family>> scraped = new AtomicReference<>();
            Await.untilTrue("every request above is counted", Duration.ofSeconds(60), () -> {
                Map<String, PrometheusText.Family> now = scrape(api);
                scraped.set(now);
                return requests.stream().allMatch(r -> delta(before, now, "trailproof_http_requests_total", r.getKey())
                        >= r.getValue())
                        && delta(before, now, "trailproof_http_request_duration_seconds_count",
                                Map.of("endpoint", "/v1/search", "method", "GET")) >= 1
                        && delta(before, now, "trailproof_idempotent_replays_total", Map.of()) >= 1;
            });
            Map<String, PrometheusText.Family> after = scraped.get();
            checkConventions(after);
            assertThat(after.keySet()).contains("trailproof_http_requests_total", "trailproof_http_request_duration_seconds",
                    "trailproof_http_response_bytes_total");
            assertThat(delta(before, after, "trailproof_events_ingested_total", Map.of())).isEqualTo(5);
            assertThat(PrometheusText.value(after, "trailproof_tree_size", Map.of())).isEqualTo(5);
            for (Map.Entry<Map<String, String>, Integer> r : requests) {
                assertThat(delta(before, after, "trailproof_http_requests_total", r.getKey())).as("%s", r.getKey())
                        .isEqualTo(r.getValue().doubleValue());
            }
            assertThat(delta(before, after, "trailproof_http_request_duration_seconds_count",
                    Map.of("endpoint", "/v1/search", "method", "GET"))).isEqualTo(1);
            assertThat(delta(before, after, "trailproof_idempotent_replays_total", Map.of())).isEqualTo(1);
            // A force is in the metrics before any write it made durable is answered: no waiting needed.
            assertThat(delta(before, after, "trailproof_log_force_group_events_count", Map.of())).isPositive();
            assertThat(PrometheusText.value(after, "trailproof_log_force_group_events_sum", Map.of())).isGreaterThanOrEqualTo(5);
            // the previous scrape itself was counted under its route
            assertThat(PrometheusText.value(after, "trailproof_http_requests_total",
                    Map.of("endpoint", "/metrics", "method", "GET", "status", "200"))).isGreaterThanOrEqualTo(1);
            // the re-verification at start runs in the background: its result appears once it is done
            Await.untilTrue("the verification at start is in the metrics", Duration.ofSeconds(60), () -> {
                scraped.set(scrape(api));
                return scraped.get().containsKey("trailproof_verification_last_ok");
            });
            after = scraped.get();
            assertThat(PrometheusText.value(after, "trailproof_verification_last_ok", Map.of())).isEqualTo(1);
            // bounded labels: no raw path (the event's id) ever becomes a label value
            for (PrometheusText.Family f : after.values()) {
                f.samples().forEach(smp -> assertThat(smp.labels().values()).noneMatch(v -> v.contains(id)));
            }
        }
    }

    @Test
    void needsTheReadRoleWhenKeysAreConfiguredAndIsAbsentWhenDisabled() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir, "auth.api-keys", "reader:read,writer:ingest")) {
            Api api = s.api();
            assertThat(api.get("/metrics").status()).isEqualTo(401);
            assertThat(get(api, "/metrics", "writer").status()).isEqualTo(403);
            Api.Reply ok = get(api, "/metrics", "reader");
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.header("Content-Type")).startsWith("text/plain; version=0.0.4");
            PrometheusText.parse(ok.body());
        }
        try (InProcessServer s = InProcessServer.start(dir, "metrics.enabled", "false")) {
            Api.Reply r = s.api().get("/metrics");
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.json().get("error").asText()).contains("/metrics");
        }
    }

    private static Api.Reply get(Api api, String path, String key) throws Exception {
        return api.send(HttpRequest.newBuilder(URI.create(api.base() + path)).header("Authorization", "Bearer " + key).GET());
    }

    private static Map<String, PrometheusText.Family> scrape(Api api) throws Exception {
        Api.Reply r = api.get("/metrics");
        assertThat(r.status()).isEqualTo(200);
        return PrometheusText.parse(r.body());
    }

    private static double delta(Map<String, PrometheusText.Family> before, Map<String, PrometheusText.Family> after,
                                String name, Map<String, String> labels) {
        return PrometheusText.value(after, name, labels) - PrometheusText.value(before, name, labels);
    }

    /** trailproof_ or the client's standard jvm_ names; _total on counters only; units on histograms; help everywhere. */
    static void checkConventions(Map<String, PrometheusText.Family> families) {
        for (PrometheusText.Family f : families.values()) {
            assertThat(f.name()).matches("(trailproof|jvm)_[a-z0-9_]+");
            assertThat(f.help()).as("HELP of " + f.name()).isNotBlank();
            if (f.type().equals("counter")) {
                assertThat(f.name()).endsWith("_total");
            } else {
                assertThat(f.name()).doesNotEndWith("_total");
            }
            if (f.type().equals("histogram") && f.name().startsWith("trailproof_")) {
                assertThat(f.name()).matches(".*_(seconds|bytes|events)");
            }
            if (f.name().startsWith("trailproof_http_")) {
                f.samples().forEach(smp -> assertThat(smp.labels().get("endpoint")).matches("/[^?]*|console|other"));
            }
        }
    }
}
