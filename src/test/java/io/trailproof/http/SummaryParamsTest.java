package io.trailproof.http;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/** {@code histogram=}: ISO 8601 durations of fixed length, each refusal saying what to give instead. */
class SummaryParamsTest {

    @Test
    void fixedLengthDurationsAreRead() throws Exception {
        assertThat(SummaryParams.histogram("PT1M")).isEqualTo(Duration.ofMinutes(1));
        assertThat(SummaryParams.histogram("PT15M")).isEqualTo(Duration.ofMinutes(15));
        assertThat(SummaryParams.histogram("P1D")).isEqualTo(Duration.ofDays(1));
        assertThat(SummaryParams.histogram("P1DT12H")).isEqualTo(Duration.ofHours(36));
        assertThat(SummaryParams.histogram("P2W")).isEqualTo(Duration.ofDays(14));
        assertThat(SummaryParams.histogram("PT0.5S")).isEqualTo(Duration.ofMillis(500));
        assertThat(SummaryParams.histogram(null)).isNull();
    }

    @Test
    void badDurationsAre400sThatSayWhy() {
        assertThatThrownBy(() -> SummaryParams.histogram("P1M")).isInstanceOf(ApiException.class)
                .hasMessageContaining("months and years have no fixed length");
        assertThatThrownBy(() -> SummaryParams.histogram("P1Y")).hasMessageContaining("months and years");
        assertThatThrownBy(() -> SummaryParams.histogram("1h")).hasMessageContaining("ISO 8601 duration such as PT1M");
        assertThatThrownBy(() -> SummaryParams.histogram("PT0S")).hasMessageContaining("positive");
        assertThatThrownBy(() -> SummaryParams.histogram("-PT1H")).hasMessageContaining("positive");
        assertThatThrownBy(() -> SummaryParams.histogram("PT0.0000001S")).hasMessageContaining("whole microseconds");
        assertThatThrownBy(() -> SummaryParams.histogram("P99999999D")).hasMessageContaining("longest bucket");
        assertThat(((ApiException) catchThrowable(() -> SummaryParams.histogram("x")))
                .status()).isEqualTo(400);
    }
}
