package io.trailproof.index;

import io.trailproof.core.event.EventTime;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.CombinedFieldQuery;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.MultiPhraseQuery;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Lucene's classic query syntax over the fields of src/site/search.md#fields, default field {@code text}, with
 * the time and number fields turned into point queries:
 * {@code timestamp:[2026-01-01 TO 2026-02-01]}, {@code recorded_at:{2026-01-01T10:00:00+02:00 TO *]},
 * {@code sequence:[1 TO 5]}, {@code duration_ms:>100} is not classic syntax, so {@code duration_ms:{100 TO *]}.
 *
 * <p>A bound is a date-time (with an offset, or naive meaning UTC, as in src/site/events.md#accepted-fields) or a date. A
 * date stands for the whole day in UTC: an inclusive upper bound {@code 2026-01-31]} takes in all of
 * January 31, an exclusive lower bound {@code {2026-01-01} starts on January 2. {@code timestamp:2026-01-05}
 * alone matches that day.
 *
 * <p>The default field {@code text} (named or not) means every text value of the event, which the
 * index keeps in {@link IndexFields#TEXT_FIELDS} (each value inverted once), so a clause on it becomes
 * the same clause on each of those fields: a word is one {@link CombinedFieldQuery} (BM25F, which
 * scores the fields as if they were one field); a phrase matches within one field's
 * text (never across the end of one field and the start of the next) and scores the sum over the
 * fields, as occurrences in one field add up; a wildcard, prefix, fuzzy term, regular expression or
 * range keeps the score of a single clause (the best field's). A parser for highlighting keeps
 * {@code text} as one field: the highlighter marks a matched term wherever it occurs, whatever
 * field the query names.
 *
 * <p>Multi-term queries (wildcards, prefixes, fuzzy terms, regular expressions) are rewritten to
 * constant-score filters, and automata are limited in the work they may take, so no query can
 * expand to an unbounded number of scored clauses; a regular expression is measured before its
 * automaton is built ({@link QueryBounds}).
 */
final class EventQueryParser extends QueryParser {

    /** Work allowed to determinize a wildcard or regular expression automaton before the query is refused. */
    static final int DETERMINIZE_WORK_LIMIT = 10_000;

    private static final long MICROS_PER_DAY = 86_400_000_000L;

    /** Whether a clause on {@code text} searches {@link IndexFields#TEXT_FIELDS} (false only for highlighting). */
    private final boolean expandText;

    /** The parser for searching. */
    EventQueryParser(IndexAnalyzer analyzer) {
        this(analyzer, true);
    }

    private EventQueryParser(IndexAnalyzer analyzer, boolean expandText) {
        super(IndexFields.TEXT, analyzer);
        this.expandText = expandText;
        setMultiTermRewriteMethod(MultiTermQuery.CONSTANT_SCORE_BLENDED_REWRITE);
        setDeterminizeWorkLimit(DETERMINIZE_WORK_LIMIT);
        setAllowLeadingWildcard(true);
        setSplitOnWhitespace(true);
        // "db-prod-01" means that sequence of words, not any of them.
        setAutoGeneratePhraseQueries(true);
    }

    /** A parser whose queries serve only to mark matches in an event's text, never to search the index. */
    static EventQueryParser forHighlights(IndexAnalyzer analyzer) {
        return new EventQueryParser(analyzer, false);
    }

    private boolean expands(String field) {
        return expandText && field.equals(IndexFields.TEXT);
    }

    /** The clause, built for one field, for every field of {@code text}. */
    private interface PerField {
        Query build(String field) throws ParseException;
    }

    private static List<Query> eachTextField(PerField clause) throws ParseException {
        List<Query> out = new ArrayList<>(IndexFields.TEXT_FIELDS.size());
        for (String f : IndexFields.TEXT_FIELDS) {
            Query q = clause.build(f);
            if (q != null) {
                out.add(q);
            }
        }
        return out;
    }

    /** Words and phrases on {@code text}: see the class comment for how they score. */
    private static Query anyTextField(List<Query> perField) {
        if (perField.isEmpty()) {
            return null; // the analyzer left nothing (punctuation only): the classic parser drops the clause
        }
        if (perField.stream().allMatch(q -> q instanceof TermQuery)) {
            var term = ((TermQuery) perField.get(0)).getTerm().bytes();
            if (perField.stream().allMatch(q -> ((TermQuery) q).getTerm().bytes().equals(term))) {
                CombinedFieldQuery.Builder b = new CombinedFieldQuery.Builder(term);
                perField.forEach(q -> b.addField(((TermQuery) q).getTerm().field()));
                return b.build();
            }
        }
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        perField.forEach(q -> b.add(q, BooleanClause.Occur.SHOULD));
        return b.build();
    }

    /** Patterns and ranges on {@code text}: a match anywhere scores like a match of the single clause. */
    private static Query bestTextField(List<Query> perField) {
        return perField.isEmpty() ? null : new DisjunctionMaxQuery(perField, 0f);
    }

    @Override
    protected Query getRangeQuery(String field, String part1, String part2, boolean startInclusive,
                                  boolean endInclusive) throws ParseException {
        if (expands(field)) {
            return bestTextField(eachTextField(f -> super.getRangeQuery(f, part1, part2, startInclusive, endInclusive)));
        }
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
        if (expands(field)) {
            return anyTextField(eachTextField(f -> super.getFieldQuery(f, queryText, quoted)));
        }
        return super.getFieldQuery(field, queryText, quoted);
    }

    /** {@code "a b"~2}: the classic parser sets the slop on the phrase it gets, so each field's phrase gets it here. */
    @Override
    protected Query getFieldQuery(String field, String queryText, int slop) throws ParseException {
        if (expands(field)) {
            return anyTextField(eachTextField(f -> withSlop(super.getFieldQuery(f, queryText, true), slop)));
        }
        return super.getFieldQuery(field, queryText, slop);
    }

    private static Query withSlop(Query q, int slop) {
        if (q instanceof PhraseQuery p) {
            PhraseQuery.Builder b = new PhraseQuery.Builder().setSlop(slop);
            Term[] terms = p.getTerms();
            int[] positions = p.getPositions();
            for (int i = 0; i < terms.length; i++) {
                b.add(terms[i], positions[i]);
            }
            return b.build();
        }
        if (q instanceof MultiPhraseQuery m) {
            return new MultiPhraseQuery.Builder(m).setSlop(slop).build();
        }
        return q;
    }

    @Override
    protected Query getWildcardQuery(String field, String termStr) throws ParseException {
        refusePointPattern(field, termStr);
        if (expands(field)) {
            return bestTextField(eachTextField(f -> super.getWildcardQuery(f, termStr)));
        }
        return super.getWildcardQuery(field, termStr);
    }

    @Override
    protected Query getPrefixQuery(String field, String termStr) throws ParseException {
        refusePointPattern(field, termStr);
        if (expands(field)) {
            return bestTextField(eachTextField(f -> super.getPrefixQuery(f, termStr)));
        }
        return super.getPrefixQuery(field, termStr);
    }

    @Override
    protected Query getFuzzyQuery(String field, String termStr, float minSimilarity) throws ParseException {
        refusePointPattern(field, termStr);
        if (expands(field)) {
            return bestTextField(eachTextField(f -> super.getFuzzyQuery(f, termStr, minSimilarity)));
        }
        return super.getFuzzyQuery(field, termStr, minSimilarity);
    }

    @Override
    protected Query getRegexpQuery(String field, String termStr) throws ParseException {
        refusePointPattern(field, termStr);
        QueryBounds.checkRegex(field, termStr);
        if (expands(field)) {
            return bestTextField(eachTextField(f -> super.getRegexpQuery(f, termStr)));
        }
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
