package io.trailproof.index;

import io.trailproof.core.event.EventTime;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.Query;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * Lucene's classic query syntax over the fields of CONTRACT 4.3, default field {@code text}, with
 * the time and number fields turned into point queries:
 * {@code timestamp:[2026-01-01 TO 2026-02-01]}, {@code recorded_at:{2026-01-01T10:00:00+02:00 TO *]},
 * {@code sequence:[1 TO 5]}, {@code duration_ms:>100} is not classic syntax, so {@code duration_ms:{100 TO *]}.
 *
 * <p>A bound is a date-time (with an offset, or naive meaning UTC, as in CONTRACT 2.1) or a date. A
 * date stands for the whole day in UTC: an inclusive upper bound {@code 2026-01-31]} takes in all of
 * January 31, an exclusive lower bound {@code {2026-01-01} starts on January 2. {@code timestamp:2026-01-05}
 * alone matches that day.
 *
 * <p>Multi-term queries (wildcards, prefixes, fuzzy terms, regular expressions) are rewritten to
 * constant-score filters, and automata are limited in the work they may take, so no query can
 * expand to an unbounded number of scored clauses.
 */
final class EventQueryParser extends QueryParser {

    /** Work allowed to determinize a wildcard or regular expression automaton before the query is refused. */
    static final int DETERMINIZE_WORK_LIMIT = 10_000;

    private static final long MICROS_PER_DAY = 86_400_000_000L;

    EventQueryParser(IndexAnalyzer analyzer) {
        super(IndexFields.TEXT, analyzer);
        setMultiTermRewriteMethod(MultiTermQuery.CONSTANT_SCORE_BLENDED_REWRITE);
        setDeterminizeWorkLimit(DETERMINIZE_WORK_LIMIT);
        setAllowLeadingWildcard(true);
        setSplitOnWhitespace(true);
        // "db-prod-01" means that sequence of words, not any of them.
        setAutoGeneratePhraseQueries(true);
    }

    @Override
    protected Query getRangeQuery(String field, String part1, String part2, boolean startInclusive,
                                  boolean endInclusive) throws ParseException {
        if (!IndexFields.isPoint(field)) {
            return super.getRangeQuery(field, part1, part2, startInclusive, endInclusive);
        }
        long low = Long.MIN_VALUE;
        long high = Long.MAX_VALUE;
        if (!open(part1)) {
            long[] span = span(field, part1);
            low = startInclusive ? span[0] : saturatedAdd(span[1], 1);
        }
        if (!open(part2)) {
            long[] span = span(field, part2);
            high = endInclusive ? span[1] : saturatedAdd(span[0], -1);
        }
        return LongPoint.newRangeQuery(field, low, high);
    }

    @Override
    protected Query getFieldQuery(String field, String queryText, boolean quoted) throws ParseException {
        if (IndexFields.isPoint(field)) {
            long[] span = span(field, queryText);
            return LongPoint.newRangeQuery(field, span[0], span[1]);
        }
        return super.getFieldQuery(field, queryText, quoted);
    }

    @Override
    protected Query getWildcardQuery(String field, String termStr) throws ParseException {
        refusePointPattern(field, termStr);
        return super.getWildcardQuery(field, termStr);
    }

    @Override
    protected Query getPrefixQuery(String field, String termStr) throws ParseException {
        refusePointPattern(field, termStr);
        return super.getPrefixQuery(field, termStr);
    }

    @Override
    protected Query getFuzzyQuery(String field, String termStr, float minSimilarity) throws ParseException {
        refusePointPattern(field, termStr);
        return super.getFuzzyQuery(field, termStr, minSimilarity);
    }

    @Override
    protected Query getRegexpQuery(String field, String termStr) throws ParseException {
        refusePointPattern(field, termStr);
        return super.getRegexpQuery(field, termStr);
    }

    private static void refusePointPattern(String field, String term) throws ParseException {
        if (IndexFields.isPoint(field)) {
            throw new ParseException(field + " is a " + (IndexFields.TIME.contains(field) ? "time" : "number")
                    + " field: use a value or a range such as " + field + ":[a TO b], not the pattern '" + term + "'");
        }
    }

    private static boolean open(String bound) {
        return bound == null || bound.equals("*");
    }

    /** The smallest and largest point value a bound denotes: a whole day for a date, one value otherwise. */
    private static long[] span(String field, String text) throws ParseException {
        if (IndexFields.TIME.contains(field)) {
            if (text.length() == 10) {
                try {
                    long start = EventDocument.micros(LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant());
                    return new long[] {start, start + MICROS_PER_DAY - 1};
                } catch (DateTimeParseException e) {
                    throw badTime(field, text);
                }
            }
            try {
                Instant t = EventTime.parseTimestamp(text);
                long micros = EventDocument.micros(t);
                return new long[] {micros, micros};
            } catch (DateTimeParseException | ArithmeticException e) {
                throw badTime(field, text);
            }
        }
        try {
            long v = Long.parseLong(text);
            return new long[] {v, v};
        } catch (NumberFormatException e) {
            throw new ParseException(field + " takes whole numbers, got '" + text + "'");
        }
    }

    private static ParseException badTime(String field, String text) {
        return new ParseException(field + " takes a date (2026-01-31) or a date-time (2026-01-31T10:00:00Z), got '"
                + text + "'");
    }

    private static long saturatedAdd(long v, long delta) {
        long r = v + delta;
        return ((v ^ r) & (delta ^ r)) < 0 ? v : r;
    }
}
