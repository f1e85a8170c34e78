package io.trailproof.core.retention;

import java.time.Duration;
import java.time.Instant;
import java.time.Period;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * How long events keep their content ({@code retention.content-after}, src/site/erasure.md#retention):
 * an ISO 8601 duration such as {@code P1Y}, {@code P6M}, {@code P26W}, {@code P200D} or
 * {@code P1Y2M3DT4H}, years, months and days counted on the UTC calendar. Pure.
 */
public final class RetentionPeriod {

    /** The shortest period allowed without {@code retention.allow-short}: six months. */
    public static final String SHORTEST = "P6M";
    /**
     * A period without months or years is at least six months when it is at least 184 days, the
     * longest six consecutive calendar months can be.
     */
    static final long SIX_MONTHS_IN_DAYS = 184;

    private final String text;
    private final Period period;
    private final Duration time;

    private RetentionPeriod(String text, Period period, Duration time) {
        this.text = text;
        this.period = period;
        this.time = time;
    }

    /**
     * Parses an ISO 8601 duration ({@code PnYnMnWnDTnHnMnS}, any part optional).
     *
     * @throws IllegalArgumentException when it is not one, or not positive
     */
    public static RetentionPeriod parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        if (!t.startsWith("P") || t.length() < 3 || t.startsWith("-")) {
            throw new IllegalArgumentException("'" + text + "' is not a positive ISO 8601 duration such as P1Y or P6M");
        }
        int tAt = t.indexOf('T');
        String datePart = tAt < 0 ? t : t.substring(0, tAt);
        String timePart = tAt < 0 ? null : "P" + t.substring(tAt);
        try {
            Period p = datePart.equals("P") ? Period.ZERO : Period.parse(datePart);
            Duration d = timePart == null ? Duration.ZERO : Duration.parse(timePart);
            if (p.isNegative() || d.isNegative() || (p.isZero() && d.isZero())) {
                throw new IllegalArgumentException("'" + text + "' is not a positive duration");
            }
            return new RetentionPeriod(t, p.normalized(), d);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not an ISO 8601 duration such as P1Y or P6M");
        }
    }

    /** Events recorded before this instant are past retention at {@code now}. */
    public Instant cutoff(Instant now) {
        return now.atOffset(ZoneOffset.UTC).minus(period).minus(time).toInstant();
    }

    /**
     * Whether the period is at least {@link #SHORTEST}: six months or more, or, counting each month
     * as 31 days, at least {@value #SIX_MONTHS_IN_DAYS} days.
     */
    public boolean atLeastSixMonths() {
        long months = period.toTotalMonths();
        if (months >= 6) {
            return true;
        }
        long timeDays = (time.toSeconds() + (time.toNanosPart() > 0 ? 1 : 0) + 86_399) / 86_400;   // rounded up
        long days = months * 31 + period.getDays() + timeDays;
        return days >= SIX_MONTHS_IN_DAYS;
    }

    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetentionPeriod r && r.period.equals(period) && r.time.equals(time);
    }

    @Override
    public int hashCode() {
        return period.hashCode() * 31 + time.hashCode();
    }
}
