package io.trailproof.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Random;
import org.junit.jupiter.api.Test;

class EventTimeTest {

    @Test
    void parsesOffsetsAndReadsNaiveAsUtc() {
        Instant utc = Instant.parse("2026-11-22T10:00:00Z");
        assertThat(EventTime.parseTimestamp("2026-11-22T10:00:00Z")).isEqualTo(utc);
        assertThat(EventTime.parseTimestamp("2026-11-22T10:00:00")).isEqualTo(utc);
        assertThat(EventTime.parseTimestamp("2026-11-22T11:00:00+01:00")).isEqualTo(utc);
        assertThat(EventTime.parseTimestamp("2026-11-22T11:00:00+0100")).isEqualTo(utc);
        assertThat(EventTime.parseTimestamp("2026-11-22T05:30:00-04:30")).isEqualTo(utc);
        assertThat(EventTime.parseTimestamp("2026-11-22T10:00:00.000001Z"))
                .isEqualTo(utc.plusNanos(1000));
    }

    @Test
    void rejectsZoneRegionsAndDates() {
        assertThatThrownBy(() -> EventTime.parseTimestamp("2026-11-22T10:00:00Z[UTC]"))
                .isInstanceOf(DateTimeParseException.class);
        assertThatThrownBy(() -> EventTime.parseTimestamp("2026-11-22")).isInstanceOf(DateTimeParseException.class);
    }

    @Test
    void formatsRecordedAtWithExactlySixFractionDigits() {
        assertThat(EventTime.formatRecordedAt(Instant.parse("2026-11-22T00:00:00.000100Z")))
                .isEqualTo("2026-11-22T00:00:00.000100Z");
        assertThat(EventTime.formatRecordedAt(Instant.parse("2026-11-22T00:00:00Z")))
                .isEqualTo("2026-11-22T00:00:00.000000Z");
        assertThat(EventTime.formatRecordedAt(Instant.parse("2026-11-22T23:59:59.123456999Z")))
                .isEqualTo("2026-11-22T23:59:59.123456Z"); // truncated, not rounded
        assertThat(EventTime.formatRecordedAt(Instant.parse("1969-12-31T23:59:59.9999999Z")))
                .isEqualTo("1969-12-31T23:59:59.999999Z");
    }

    @Test
    void recordedAtParsesBackAsATimestamp() {
        Instant t = Instant.parse("2026-11-22T00:00:00.000100Z");
        assertThat(EventTime.parseTimestamp(EventTime.formatRecordedAt(t))).isEqualTo(t);
    }

    @Test
    void recordedAtIsWhatTheFormatterWouldWriteForSeededInstants() {
        DateTimeFormatter reference = DateTimeFormatter
                .ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);
        Random r = new Random(3339);
        for (int i = 0; i < 20_000; i++) {
            long seconds = r.nextLong(Instant.parse("0000-01-01T00:00:00Z").getEpochSecond(),
                    Instant.parse("9999-12-31T23:59:59Z").getEpochSecond() + 1);
            Instant t = Instant.ofEpochSecond(seconds, r.nextInt(1_000_000_000));
            assertThat(EventTime.formatRecordedAt(t))
                    .isEqualTo(reference.format(t.truncatedTo(ChronoUnit.MICROS)));
        }
    }
}
