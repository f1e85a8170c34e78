package io.trailproof.core.event;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.chrono.IsoChronology;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAccessor;

/**
 * The two time formats of src/site/events.md: the client's {@code timestamp} (ISO 8601 date-time, with
 * {@code Z}, an offset, or no offset meaning UTC) and the service's {@code recorded_at} (RFC 3339
 * UTC with exactly six fractional digits, so that it sorts as text and its hash is stable).
 */
public final class EventTime {
    private EventTime() {}

    /**
     * Calendar date and time of day, then an optional offset. Four-digit years only; a zone region
     * such as {@code [Europe/Paris]} or a date without a time is not an instant and is rejected.
     * Seconds and fractions are optional, as ISO 8601 allows; {@code T} and {@code Z} in either case.
     */
    private static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder()
            .parseCaseInsensitive()
            .appendValue(ChronoField.YEAR, 4)
            .appendLiteral('-')
            .appendValue(ChronoField.MONTH_OF_YEAR, 2)
            .appendLiteral('-')
            .appendValue(ChronoField.DAY_OF_MONTH, 2)
            .appendLiteral('T')
            .append(DateTimeFormatter.ISO_LOCAL_TIME)
            .optionalStart().appendOffset("+HH:MM:ss", "Z").optionalEnd()
            .optionalStart().appendOffset("+HHMM", "Z").optionalEnd()
            .optionalStart().appendOffset("+HH", "Z").optionalEnd()
            .toFormatter()
            .withChronology(IsoChronology.INSTANCE)
            .withResolverStyle(ResolverStyle.STRICT);

    private static final DateTimeFormatter RECORDED_AT = new DateTimeFormatterBuilder()
            .appendPattern("uuuu-MM-dd'T'HH:mm:ss")
            .appendFraction(ChronoField.MICRO_OF_SECOND, 6, 6, true)
            .appendLiteral('Z')
            .toFormatter()
            .withChronology(IsoChronology.INSTANCE)
            .withZone(ZoneOffset.UTC);

    /**
     * The instant a client {@code timestamp} denotes.
     *
     * @throws DateTimeParseException when the text is not one of the accepted forms
     */
    public static Instant parseTimestamp(String text) {
        Instant fast = parseCommonForm(text);
        return fast != null ? fast : parseWithFormatter(text);
    }

    /** {@link #parseTimestamp} by the formatter alone: every accepted form, and the reason of a refusal. */
    static Instant parseWithFormatter(String text) {
        TemporalAccessor parsed = TIMESTAMP.parse(text);
        LocalDateTime local = LocalDateTime.from(parsed);
        ZoneOffset offset = parsed.isSupported(ChronoField.OFFSET_SECONDS)
                ? ZoneOffset.ofTotalSeconds(parsed.get(ChronoField.OFFSET_SECONDS))
                : ZoneOffset.UTC;
        return OffsetDateTime.of(local, offset).toInstant();
    }

    /**
     * The form nearly every event carries, read without the formatter (whose parse is most of the
     * cost of validating a small event): {@code YYYY-MM-DDTHH:MM:SS}, an optional fraction of 1 to 9
     * digits, then {@code Z}, with a day of month up to 28 and every field in its range. Returns null
     * for anything else, which the formatter then decides: so this accepts nothing the formatter
     * refuses, and gives the same instant.
     */
    private static Instant parseCommonForm(String s) {
        int n = s.length();
        if (n < 20 || n > 30 || s.charAt(n - 1) != 'Z' || s.charAt(4) != '-' || s.charAt(7) != '-'
                || s.charAt(10) != 'T' || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return null;
        }
        int year = number(s, 0, 4);
        int month = number(s, 5, 2);
        int day = number(s, 8, 2);
        int hour = number(s, 11, 2);
        int minute = number(s, 14, 2);
        int second = number(s, 17, 2);
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > 28 || hour < 0 || hour > 23
                || minute < 0 || minute > 59 || second < 0 || second > 59) {
            return null;
        }
        int nanos = 0;
        if (n > 20) {
            int fraction = n - 21;
            if (s.charAt(19) != '.' || fraction < 1 || fraction > 9) {
                return null;
            }
            int f = number(s, 20, fraction);
            if (f < 0) {
                return null;
            }
            for (int i = fraction; i < 9; i++) {
                f *= 10;
            }
            nanos = f;
        }
        return LocalDateTime.of(year, month, day, hour, minute, second, nanos).toInstant(ZoneOffset.UTC);
    }

    /** The decimal value of {@code width} ASCII digits at {@code at}, or -1 if one is not a digit. */
    private static int number(String s, int at, int width) {
        int value = 0;
        for (int i = at; i < at + width; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    /**
     * Whether {@code recorded_at} text {@code a} is a later instant than {@code b}. Two texts of the
     * shape {@link #formatRecordedAt} writes for years 0 to 9999 (fixed width, UTC) are compared as
     * text, which orders them as instants; any other text is parsed ({@link Instant#parse}, which
     * throws on text that is not an instant).
     */
    public static boolean recordedAtAfter(String a, String b) {
        if (fixedShape(a) && fixedShape(b)) {
            return a.compareTo(b) > 0;
        }
        return Instant.parse(a).isAfter(Instant.parse(b));
    }

    /** {@code uuuu-MM-ddTHH:mm:ss.SSSSSSZ}: digits where the shape has them, its separators elsewhere. */
    private static boolean fixedShape(String s) {
        String shape = "0000-00-00T00:00:00.000000Z";
        if (s.length() != shape.length()) {
            return false;
        }
        for (int i = 0; i < shape.length(); i++) {
            char want = shape.charAt(i);
            char c = s.charAt(i);
            if (want == '0' ? c < '0' || c > '9' : c != want) {
                return false;
            }
        }
        return true;
    }

    /** {@code recorded_at} for an instant: RFC 3339 UTC, truncated to exactly six fractional digits. */
    public static String formatRecordedAt(Instant instant) {
        Instant t = instant.truncatedTo(ChronoUnit.MICROS);
        LocalDateTime d = LocalDateTime.ofEpochSecond(t.getEpochSecond(), t.getNano(), ZoneOffset.UTC);
        if (d.getYear() < 0 || d.getYear() > 9999) {
            return RECORDED_AT.format(t);
        }
        // Written digit by digit: this runs once per stored event, and the formatter is the slow path.
        char[] c = "0000-00-00T00:00:00.000000Z".toCharArray();
        digits(c, 0, 4, d.getYear());
        digits(c, 5, 2, d.getMonthValue());
        digits(c, 8, 2, d.getDayOfMonth());
        digits(c, 11, 2, d.getHour());
        digits(c, 14, 2, d.getMinute());
        digits(c, 17, 2, d.getSecond());
        digits(c, 20, 6, d.getNano() / 1000);
        return new String(c);
    }

    private static void digits(char[] c, int at, int width, int value) {
        for (int i = at + width - 1; i >= at; i--) {
            c[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }
}
