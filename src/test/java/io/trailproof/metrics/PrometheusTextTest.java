package io.trailproof.metrics;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The test parser is strict enough to catch what it is there to catch. */
class PrometheusTextTest {

    @Test
    void readsFamiliesSamplesAndEscapedLabels() {
        var f = PrometheusText.parse("""
                # HELP a_total things
                # TYPE a_total counter
                a_total{x="1",y="q\\"uote"} 3.0
                # TYPE h_seconds histogram
                h_seconds_bucket{le="0.1"} 1
                h_seconds_bucket{le="+Inf"} 2
                h_seconds_count 2
                h_seconds_sum 0.3
                """);
        assertThat(f.get("a_total").help()).isEqualTo("things");
        assertThat(PrometheusText.value(f, "a_total", Map.of("x", "1", "y", "q\"uote"))).isEqualTo(3.0);
        assertThat(PrometheusText.value(f, "h_seconds_count", Map.of())).isEqualTo(2);
    }

    @Test
    void refusesWhatIsNotTheFormat() {
        assertThatThrownBy(() -> PrometheusText.parse("a 1\n")).hasMessageContaining("before any TYPE");
        assertThatThrownBy(() -> PrometheusText.parse("# TYPE a gauge\nb 1\n")).hasMessageContaining("does not belong");
        assertThatThrownBy(() -> PrometheusText.parse("# TYPE a gauge\na{x=1} 1\n")).hasMessageContaining("label set");
        assertThatThrownBy(() -> PrometheusText.parse("# TYPE a gauge\na one\n")).hasMessageContaining("not a number");
        assertThatThrownBy(() -> PrometheusText.parse("# TYPE a gauge\na 1\na 2\n")).hasMessageContaining("twice");
        assertThatThrownBy(() -> PrometheusText.parse("# TYPE a gauge\n\n")).hasMessageContaining("not a HELP");
        assertThatThrownBy(() -> PrometheusText.parse("# TYPE a gauge\na 1")).hasMessageContaining("line feed");
        assertThatThrownBy(() -> PrometheusText.parse("# TYPE h histogram\nh_bucket 1\n")).hasMessageContaining("does not belong");
    }
}
