package io.trailproof.index;

import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.PointInSetQuery;
import org.apache.lucene.search.PointRangeQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

import java.util.List;
import java.util.function.Predicate;

/**
 * Whether every match of a query gets the same score, read from the query's shape. When it does,
 * the relevance order (best score first, ties newest {@code log_index} first) is exactly the order
 * of {@code log_index} alone, which is the index's own sort ({@link LuceneEventIndex#INDEX_SORT}),
 * and a page is found without scoring every match. A shape not recognised here counts as scored:
 * the answer is then the same, found by the general path.
 *
 * <p>Constant: {@code *:*}, ranges, wildcards, prefixes, regular expressions and fuzzy terms (all
 * rewritten to constant-score filters, {@link EventQueryParser}), an exact term on a keyword field
 * (no norms and no frequencies, so BM25 gives every match the term's weight), and any conjunction
 * of those (a sum of constants), a clause with a boost, a disjunction of one clause, or the best
 * field of several constant clauses of weight one.
 */
final class ConstantScores {

    private ConstantScores() {
    }

    /**
     * True when every document {@code query} matches in {@code reader} scores the same. Each term's
     * field is looked up in each segment's own field list: merging those lists on every search cost
     * a search a tenth of its CPU at a million events, and grows with the number of segments.
     */
    static boolean of(Query query, IndexReader reader) {
        return constant(query, field -> countsOnce(reader, field));
    }

    private static boolean constant(Query query, Predicate<String> countsOnce) {
        if (unit(query)) {
            return true;
        }
        return switch (query) {
            case BoostQuery b -> constant(b.getQuery(), countsOnce);
            case TermQuery t -> countsOnce.test(t.getTerm().field());
            case BooleanQuery b -> constant(b, countsOnce);
            case DisjunctionMaxQuery d -> d.getTieBreakerMultiplier() == 0f
                    && d.getDisjuncts().stream().allMatch(ConstantScores::unit);
            default -> false;
        };
    }

    /** Queries whose every match scores exactly 1 (their boost, when they have none). */
    private static boolean unit(Query query) {
        return switch (query) {
            case MatchAllDocsQuery m -> true;
            case MatchNoDocsQuery m -> true;
            case ConstantScoreQuery c -> true;
            case FieldExistsQuery f -> true;
            case PointRangeQuery p -> true;
            case PointInSetQuery p -> true;
            case MultiTermQuery m -> constantRewrite(m.getRewriteMethod());
            case BoostQuery b -> b.getBoost() == 1f && unit(b.getQuery());
            default -> false;
        };
    }

    private static boolean constantRewrite(MultiTermQuery.RewriteMethod method) {
        return method == MultiTermQuery.CONSTANT_SCORE_BLENDED_REWRITE || method == MultiTermQuery.CONSTANT_SCORE_REWRITE
                || method == MultiTermQuery.CONSTANT_SCORE_BOOLEAN_REWRITE;
    }

    /**
     * A term of this field weighs the same in every document: no segment keeps norms or frequencies
     * for it (or no segment has the field).
     */
    private static boolean countsOnce(IndexReader reader, String field) {
        for (LeafReaderContext leaf : reader.leaves()) {
            FieldInfo info = leaf.reader().getFieldInfos().fieldInfo(field);
            if (info != null && !(info.omitsNorms() && info.getIndexOptions() == IndexOptions.DOCS)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Filters and exclusions add nothing to a score; what is left must be required clauses only (each
     * constant: their sum is), or a single {@code SHOULD} clause that every match has (it is optional,
     * and adds to the score of only the matches that have it, once a required or filter clause is there).
     */
    private static boolean constant(BooleanQuery query, Predicate<String> countsOnce) {
        List<BooleanClause> scoring = query.clauses().stream().filter(c -> c.occur() == BooleanClause.Occur.MUST
                || c.occur() == BooleanClause.Occur.SHOULD).toList();
        long should = scoring.stream().filter(c -> c.occur() == BooleanClause.Occur.SHOULD).count();
        boolean required = query.clauses().stream().anyMatch(c -> c.occur() == BooleanClause.Occur.MUST
                || c.occur() == BooleanClause.Occur.FILTER);
        if (should > 0 && (scoring.size() > 1 || (required && query.getMinimumNumberShouldMatch() < 1))) {
            return false;
        }
        return scoring.stream().allMatch(c -> constant(c.query(), countsOnce));
    }
}
