package io.trailproof.metrics;

import java.time.Duration;
import io.trailproof.testing.Await;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.SseClient;
import io.trailproof.testing.TestTsa;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The gauges read at scrape time and the outcome counters follow the service's state (src/site/operations.md). */
class MetricsStateIT {

    @TempDir
    Path dir;

    @Test
    void indexLagStreamsRequestsInFlightAndTimestampOutcomesFollowTheService() throws Exception {
        try (TestTsa tsa = TestTsa.start();
             InProcessServer s = InProcessServer.start(dir.resolve("data"), "timestamp.default-tsa-url", tsa.url(),
                     "timestamp.trust-anchors", tsa.writeRootPem(dir.resolve("ca.pem")).toString(),
                     "timestamp.timeout-ms", "15000")) {
            Api api = s.api();
            // events stored while the index follower is held are not searchable yet: that is the lag
            try (AutoCloseable held = s.server().searchIndex().holdFollower()) {
                for (int i = 0; i < 3; i++) {
                    assertThat(api.post("/v1/events", "{\"agent_id\":\"lag\"}").status()).isEqualTo(201);
                }
                assertThat(value(api, "trailproof_index_lag_events", Map.of())).isEqualTo(3);
            }
            Await.untilTrue("the index lag is back to zero", Duration.ofSeconds(30),
                    () -> value(api, "trailproof_index_lag_events", Map.of()) == 0);
            assertThat(value(api, "trailproof_index_lag_events", Map.of())).isZero();

            try (SseClient stream = SseClient.open(s.server().port(), "/v1/stream")) {
                assertThat(stream.status()).isEqualTo(200);
                assertThat(value(api, "trailproof_stream_subscribers", Map.of())).isEqualTo(1);
                assertThat(value(api, "trailproof_requests_in_flight", Map.of())).as("the stream and the scrape")
                        .isEqualTo(2);
            }
            Await.untilTrue("only the scrape is in flight once the stream has closed", Duration.ofSeconds(30),
                    () -> value(api, "trailproof_requests_in_flight", Map.of()) == 1);

            assertThat(api.post("/v1/timestamp", "{}").status()).isEqualTo(201);
            tsa.mode(TestTsa.Mode.GARBAGE);
            assertThat(api.post("/v1/timestamp", "{}").status()).isEqualTo(502);
            assertThat(value(api, "trailproof_timestamps_total", Map.of("outcome", "success"))).isEqualTo(1);
            assertThat(value(api, "trailproof_timestamps_total", Map.of("outcome", "failure"))).isEqualTo(1);
        }
    }

    private static double value(Api api, String name, Map<String, String> labels) throws Exception {
        Api.Reply r = api.get("/metrics");
        assertThat(r.status()).isEqualTo(200);
        return PrometheusText.value(PrometheusText.parse(r.body()), name, labels);
    }
}
