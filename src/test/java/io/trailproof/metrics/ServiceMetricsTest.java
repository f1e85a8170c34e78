package io.trailproof.metrics;

import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ServiceMetricsTest {

    @Test
    void recordsWhatItIsToldAndWritesParseableText() throws Exception {
        ServiceMetrics m = new ServiceMetrics();
        m.gauge("trailproof_test_gauge", "a test gauge", () -> 7);
        m.request("/v1/events", "POST", 201, 2_000_000, 120);
        m.request("/v1/events", "POST", 201, 3_000_000, 80);
        m.logForced(1_500_000, 40);
        m.timestamp(false);
        m.witnessConfigured("w1");
        m.witness("w1", true);
        m.verified(2, 1_700_000_000_000L);
        Map<String, PrometheusText.Family> f = scrape(m);
        MetricsScrapeIT.checkConventions(f);
        assertThat(PrometheusText.value(f, "trailproof_test_gauge", Map.of())).isEqualTo(7);
        assertThat(PrometheusText.value(f, "trailproof_http_requests_total",
                Map.of("endpoint", "/v1/events", "method", "POST", "status", "201"))).isEqualTo(2);
        assertThat(PrometheusText.value(f, "trailproof_http_request_duration_seconds_sum",
                Map.of("endpoint", "/v1/events", "method", "POST"))).isEqualTo(0.005, Offset.offset(1e-9));
        assertThat(PrometheusText.value(f, "trailproof_http_response_bytes_total", Map.of("endpoint", "/v1/events")))
                .isEqualTo(200);
        assertThat(PrometheusText.value(f, "trailproof_log_force_group_events_bucket", Map.of("le", "50.0"))).isEqualTo(1);
        assertThat(PrometheusText.value(f, "trailproof_log_force_group_events_bucket", Map.of("le", "20.0"))).isZero();
        assertThat(PrometheusText.value(f, "trailproof_timestamps_total", Map.of("outcome", "failure"))).isEqualTo(1);
        assertThat(PrometheusText.value(f, "trailproof_witness_requests_total", Map.of("witness", "w1", "outcome", "success")))
                .isEqualTo(1);
        assertThat(PrometheusText.value(f, "trailproof_verification_last_ok", Map.of())).isZero();
        assertThat(PrometheusText.value(f, "trailproof_verification_last_invalid_chains", Map.of())).isEqualTo(2);
        assertThat(PrometheusText.value(f, "trailproof_verification_last_timestamp_seconds", Map.of())).isEqualTo(1.7e9);
    }

    @Test
    void verificationIsAbsentBeforeTheFirstAndNamesAreChecked() throws Exception {
        ServiceMetrics m = new ServiceMetrics();
        assertThat(scrape(m)).doesNotContainKey("trailproof_verification_last_ok");
        assertThatThrownBy(() -> m.gauge("queue_size", "x", () -> 1)).hasMessageContaining("trailproof_");
        assertThatThrownBy(() -> m.counter("trailproof_things", "x", () -> 1)).hasMessageContaining("_total");
    }

    private static Map<String, PrometheusText.Family> scrape(ServiceMetrics m) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        m.write(out);
        return PrometheusText.parse(out.toString(StandardCharsets.UTF_8));
    }
}
