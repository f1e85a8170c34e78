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

    /** The text comparison orders recorded_at values as the instants they name, whatever their shape. */
    @Test
    void recordedAtAfterOrdersAsInstants() {
        Random r = new Random(42);
        for (int k = 0; k < 20_000; k++) {
            Instant a = Instant.ofEpochSecond(r.nextLong(-62_000_000_000L, 253_000_000_000L), r.nextInt(1_000_000_000));
            Instant b = r.nextInt(4) == 0 ? a.plusNanos(r.nextInt(3) * 1000L) : Instant.ofEpochSecond(
                    r.nextLong(-62_000_000_000L, 253_000_000_000L), r.nextInt(1_000_000_000));
            String ta = EventTime.formatRecordedAt(a);
            String tb = EventTime.formatRecordedAt(b);
            assertThat(EventTime.recordedAtAfter(ta, tb)).as(ta + " after " + tb)
                    .isEqualTo(Instant.parse(ta).isAfter(Instant.parse(tb)));
        }
        // Another shape (an offset, another precision) is parsed.
        assertThat(EventTime.recordedAtAfter("2026-01-01T01:00:00+02:00", "2026-01-01T00:00:00.000000Z")).isFalse();
        assertThat(EventTime.recordedAtAfter("2026-01-01T00:00:00.5Z", "2026-01-01T00:00:00.400000Z")).isTrue();
        assertThatThrownBy(() -> EventTime.recordedAtAfter("yesterday", "2026-01-01T00:00:00.000000Z"))
                .isInstanceOf(DateTimeParseException.class);
    }

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

    @Test
    void commonFormAgreesWithTheFormatterOnSeededAndMutatedTexts() {
        Random r = new Random(8601);
        String alphabet = "0123456789-:.TZtz+ 9";
        int accepted = 0;
        for (int i = 0; i < 8_000; i++) {
            long seconds = r.nextLong(Instant.parse("0000-01-01T00:00:00Z").getEpochSecond(),
                    Instant.parse("9999-12-31T23:59:59Z").getEpochSecond() + 1);
            String text = Instant.ofEpochSecond(seconds, r.nextInt(1_000_000_000)).toString();
            StringBuilder b = new StringBuilder(text);
            switch (r.nextInt(4)) {
                case 0 -> { } // as written: Z, and 0, 3, 6 or 9 fraction digits
                case 1 -> b.setCharAt(r.nextInt(b.length()), alphabet.charAt(r.nextInt(alphabet.length())));
                case 2 -> b.deleteCharAt(r.nextInt(b.length()));
                default -> { // fields out of range, days past 28, fraction lengths 1 to 10
                    String[] edges = {"00", "13", "24", "29", "30", "31", "59", "60", "99"};
                    int at = new int[] {5, 8, 11, 14, 17}[r.nextInt(5)];
                    b.replace(at, at + 2, edges[r.nextInt(edges.length)]);
                    if (r.nextBoolean() && b.charAt(b.length() - 1) == 'Z') {
                        int dot = b.indexOf(".");
                        String digits = "1234567890".substring(0, 1 + r.nextInt(10));
                        b.replace(dot < 0 ? 19 : dot, b.length() - 1, "." + digits);
                    }
                }
            }
            String candidate = b.toString();
            Object expected;
            try {
                expected = EventTime.parseWithFormatter(candidate);
                accepted++;
            } catch (DateTimeParseException e) {
                expected = DateTimeParseException.class;
            }
            Object actual;
            try {
                actual = EventTime.parseTimestamp(candidate);
            } catch (DateTimeParseException e) {
                actual = DateTimeParseException.class;
            }
            assertThat(actual).as(candidate).isEqualTo(expected);
        }
        assertThat(accepted).isBetween(2_400, 7_200);
    }
}
