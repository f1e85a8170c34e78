package io.trailproof.index;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.SynonymQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.highlight.Highlighter;
import org.apache.lucene.search.highlight.InvalidTokenOffsetsException;
import org.apache.lucene.search.highlight.QueryScorer;
import org.apache.lucene.search.highlight.Encoder;
import org.apache.lucene.search.highlight.SimpleHTMLFormatter;

import org.apache.lucene.search.highlight.SimpleFragmenter;
import org.apache.lucene.search.highlight.WeightedSpanTerm;
import org.apache.lucene.search.highlight.WeightedSpanTermExtractor;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.automaton.ByteRunAutomaton;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Highlights for a search result, computed from the event as read from the log (not from the index):
 * for each text field, the best fragments with the matched terms in {@code <em>..</em>} (a term
 * matched through the default field {@code text} is marked wherever it occurs, one matched through a
 * named field only in that field); for each keyword field, the whole value when a clause on it
 * matches it (a word, a wildcard, a prefix, a range). Fragments are HTML-escaped.
 */
final class Highlights {

    static final String PRE = "<em>";
    static final String POST = "</em>";
    static final int FRAGMENT_CHARS = 120;
    static final int MAX_FRAGMENTS = 3;

    private final Analyzer analyzer;

    Highlights(Analyzer analyzer) {
        this.analyzer = analyzer;
    }

    /** HTML-escapes the five characters that matter, leaving every other character as it is. */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * The highlights of {@code event} for {@code query} (parsed for highlighting: clauses on
     * {@code text} keep that field). A keyword field is marked when a clause on it matches its whole
     * value, a wildcard, prefix, range or regular expression included; a text field shows the terms
     * of clauses on it or on {@code text}, never those of a clause on another field. A field whose
     * highlighting fails is left out: a highlight is a convenience, the event is still a result.
     */
    Map<String, List<String>> of(Query query, StoredEvent event) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        JsonNode json = event.json();
        KeywordMatches keywords = new KeywordMatches();
        query.visit(keywords);
        Encoder encoder = Highlights::escape;
        for (String[] f : new String[][] {{EventFields.AGENT_ID, IndexFields.AGENT_ID},
                {EventFields.SESSION_ID, IndexFields.SESSION_ID}, {EventFields.ACTION_TYPE, IndexFields.ACTION_TYPE},
                {EventFields.ACTION_STATUS, IndexFields.ACTION_STATUS}}) {
            JsonNode v = json.get(f[0]);
            if (v != null && v.isTextual() && keywords.matches(f[1], v.textValue())) {
                out.put(f[1], List.of(PRE + encoder.encodeText(v.textValue()) + POST));
            }
        }
        JsonNode labels = json.get(EventFields.LABELS);
        if (labels != null && labels.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = labels.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> l = it.next();
                String field = IndexFields.LABEL_PREFIX + l.getKey();
                if (l.getValue().isTextual() && keywords.matches(field, l.getValue().textValue())) {
                    out.put(field, List.of(PRE + encoder.encodeText(l.getValue().textValue()) + POST));
                }
            }
        }
        for (String[] f : new String[][] {{EventFields.ACTION_NAME, IndexFields.ACTION_NAME},
                {EventFields.ERROR_MESSAGE, IndexFields.ERROR_MESSAGE}, {EventFields.ACTION_INPUT, IndexFields.INPUT},
                {EventFields.ACTION_OUTPUT, IndexFields.OUTPUT}, {EventFields.METADATA, IndexFields.METADATA}}) {
            if (!keywords.names(f[1]) && !keywords.names(IndexFields.TEXT)) {
                // No positive clause can mark this field: its text is not analysed at all (the
                // long input, output and metadata of a search on keyword fields cost most of its CPU).
                continue;
            }
            String text = EventDocument.textOf(json.get(f[0]));
            if (text.isEmpty()) {
                continue;
            }
            try {
                Highlighter highlighter = new Highlighter(new SimpleHTMLFormatter(PRE, POST), encoder,
                        new FieldScorer(query, f[1]));
                highlighter.setTextFragmenter(new SimpleFragmenter(FRAGMENT_CHARS));
                String[] fragments = highlighter.getBestFragments(analyzer, f[1], text, MAX_FRAGMENTS);
                List<String> marked = Arrays.stream(fragments).filter(s -> s.contains(PRE)).toList();
                if (!marked.isEmpty()) {
                    out.put(f[1], marked);
                }
            } catch (IOException | InvalidTokenOffsetsException | RuntimeException e) {
                // a highlight is a convenience: a field that cannot be highlighted is left out
            }
        }
        return out;
    }

    /**
     * Scores the terms of one text field: those of clauses on that field or on {@code text}. A
     * wildcard, prefix, fuzzy term, range or regular expression contributes the words of the field
     * it matches, however many (Lucene's own extractor expands it into at most 1,024 clauses and
     * fails beyond). A plain term or synonym clause contributes its own terms, read from the query:
     * Lucene's extractor would first build an in-memory index of the field's text to rewrite it,
     * which leaves such a query as it is but costs tens of kilobytes per field and result (what made
     * the collector pause under a stream of selective searches).
     */
    static final class FieldScorer extends QueryScorer {
        FieldScorer(Query query, String field) {
            super(query, field, IndexFields.TEXT);
        }

        @Override
        protected WeightedSpanTermExtractor newTermExtractor(String defaultField) {
            return new WeightedSpanTermExtractor(defaultField) {
                @Override
                protected void extractWeightedTerms(Map<String, WeightedSpanTerm> terms, Query query, float boost)
                        throws IOException {
                    if (!(query instanceof TermQuery) && !(query instanceof SynonymQuery)) {
                        super.extractWeightedTerms(terms, query, boost);
                        return;
                    }
                    Set<Term> named = new HashSet<>();
                    query.visit(QueryVisitor.termCollector(named));
                    for (Term t : named) {
                        if (fieldNameComparator(t.field())) {
                            terms.put(t.text(), new WeightedSpanTerm(boost, t.text()));
                        }
                    }
                }

                @Override
                protected void extract(Query query, float boost, Map<String, WeightedSpanTerm> terms) throws IOException {
                    if (!(query instanceof MultiTermQuery mtq)) {
                        super.extract(query, boost, terms);
                        return;
                    }
                    if (!fieldNameComparator(mtq.getField())) {
                        return;
                    }
                    // The leaf holds only the field being highlighted, whatever name it is asked by.
                    Terms words = getLeafContext().reader().terms(mtq.getField());
                    if (words == null) {
                        return;
                    }
                    TermsEnum matching = mtq.getTermsEnum(words);
                    for (BytesRef word = matching.next(); word != null; word = matching.next()) {
                        String w = word.utf8ToString();
                        terms.putIfAbsent(w, new WeightedSpanTerm(boost, w));
                    }
                }
            };
        }
    }

    /**
     * The keyword values a query's positive clauses match: exact terms, and the automata of its
     * wildcards, prefixes, ranges and regular expressions, by field; and the fields those clauses
     * are on. Clauses under a NOT are skipped, as Lucene's highlighter skips them.
     */
    private static final class KeywordMatches extends QueryVisitor {
        private final Set<Term> exact = new HashSet<>();
        private final Map<String, List<Supplier<ByteRunAutomaton>>> patterns = new HashMap<>();
        /** Every field a positive clause is on (Lucene's queries ask {@link #acceptField} before they give terms). */
        private final Set<String> named = new HashSet<>();

        @Override
        public boolean acceptField(String field) {
            named.add(field);
            return true;
        }

        @Override
        public void consumeTerms(Query query, Term... terms) {
            exact.addAll(Arrays.asList(terms));
            for (Term t : terms) {
                named.add(t.field());
            }
        }

        @Override
        public void consumeTermsMatching(Query query, String field, Supplier<ByteRunAutomaton> automaton) {
            patterns.computeIfAbsent(field, f -> new ArrayList<>()).add(automaton);
            named.add(field);
        }

        /** Whether a positive clause of the query is on {@code field}. */
        boolean names(String field) {
            return named.contains(field);
        }

        @Override
        public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
            return occur == BooleanClause.Occur.MUST_NOT ? EMPTY_VISITOR : this;
        }

        boolean matches(String field, String value) {
            if (exact.contains(new Term(field, value))) {
                return true;
            }
            BytesRef bytes = new BytesRef(value);
            for (Supplier<ByteRunAutomaton> a : patterns.getOrDefault(field, List.of())) {
                if (a.get().run(bytes.bytes, bytes.offset, bytes.length)) {
                    return true;
                }
            }
            return false;
        }
    }
}
