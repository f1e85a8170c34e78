package io.trailproof.core.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** retention.content-after values (src/site/erasure.md#retention): parsing, the cutoff on the UTC calendar, the six-month floor. */
class RetentionPeriodTest {

    @Test
    void cutoffsCountYearsMonthsAndDaysOnTheUtcCalendar() {
        Instant now = Instant.parse("2026-08-31T12:00:00Z");
        assertThat(RetentionPeriod.parse("P6M").cutoff(now)).isEqualTo(Instant.parse("2026-02-28T12:00:00Z"));
        assertThat(RetentionPeriod.parse("P1Y").cutoff(now)).isEqualTo(Instant.parse("2025-08-31T12:00:00Z"));
        assertThat(RetentionPeriod.parse("P2W").cutoff(now)).isEqualTo(Instant.parse("2026-08-17T12:00:00Z"));
        assertThat(RetentionPeriod.parse("p1y2m3dt4h").cutoff(now)).isEqualTo(Instant.parse("2025-06-27T08:00:00Z"));
        assertThat(RetentionPeriod.parse("PT36H").cutoff(now)).isEqualTo(Instant.parse("2026-08-30T00:00:00Z"));
    }

    @Test
    void sixMonthsIsTheFloor() {
        assertThat(RetentionPeriod.parse("P6M").atLeastSixMonths()).isTrue();
        assertThat(RetentionPeriod.parse("P1Y").atLeastSixMonths()).isTrue();
        assertThat(RetentionPeriod.parse("P184D").atLeastSixMonths()).isTrue();
        assertThat(RetentionPeriod.parse("P27W").atLeastSixMonths()).isTrue();
        assertThat(RetentionPeriod.parse("P5M").atLeastSixMonths()).isFalse();
        assertThat(RetentionPeriod.parse("P183D").atLeastSixMonths()).isFalse();
        assertThat(RetentionPeriod.parse("P30D").atLeastSixMonths()).isFalse();
        assertThat(RetentionPeriod.parse("PT4000H").atLeastSixMonths()).isFalse();
        assertThat(RetentionPeriod.parse("PT4416H").atLeastSixMonths()).isTrue();
    }

    @Test
    void anythingButAPositiveDurationIsRefused() {
        for (String bad : new String[] {"", "P", "6M", "P-1M", "-P6M", "PT", "P0D", "P6X", "1 year", "PT-1H"}) {
            assertThatThrownBy(() -> RetentionPeriod.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
