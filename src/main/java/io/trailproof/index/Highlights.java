package io.trailproof.index;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.highlight.Highlighter;
import org.apache.lucene.search.highlight.InvalidTokenOffsetsException;
import org.apache.lucene.search.highlight.QueryScorer;
import org.apache.lucene.search.highlight.Encoder;
import org.apache.lucene.search.highlight.SimpleHTMLFormatter;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.search.highlight.SimpleFragmenter;

/**
 * Highlights for a search result, computed from the event as read from the log (not from the index):
 * for each text field, the best fragments with the matched terms in {@code <em>..</em>} (a term
 * matched through the default field {@code text} is marked wherever it occurs); for each keyword
 * field, the whole value when the query names it exactly. Fragments are HTML-escaped.
 */
final class Highlights {

    static final String PRE = "<em>";
    static final String POST = "</em>";
    private static final int FRAGMENT_CHARS = 120;
    private static final int MAX_FRAGMENTS = 3;

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

    Map<String, List<String>> of(Query query, StoredEvent event) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        JsonNode json = event.json();
        Set<Term> exact = new HashSet<>();
        query.visit(QueryVisitor.termCollector(exact));
        Encoder encoder = Highlights::escape;
        for (String[] f : new String[][] {{EventFields.AGENT_ID, IndexFields.AGENT_ID},
                {EventFields.SESSION_ID, IndexFields.SESSION_ID}, {EventFields.ACTION_TYPE, IndexFields.ACTION_TYPE},
                {EventFields.ACTION_STATUS, IndexFields.ACTION_STATUS}}) {
            JsonNode v = json.get(f[0]);
            if (v != null && v.isTextual() && exact.contains(new Term(f[1], v.textValue()))) {
                out.put(f[1], List.of(PRE + encoder.encodeText(v.textValue()) + POST));
            }
        }
        JsonNode labels = json.get(EventFields.LABELS);
        if (labels != null && labels.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = labels.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> l = it.next();
                String field = IndexFields.LABEL_PREFIX + l.getKey();
                if (l.getValue().isTextual() && exact.contains(new Term(field, l.getValue().textValue()))) {
                    out.put(field, List.of(PRE + encoder.encodeText(l.getValue().textValue()) + POST));
                }
            }
        }
        Highlighter highlighter = new Highlighter(new SimpleHTMLFormatter(PRE, POST), encoder, new QueryScorer(query));
        highlighter.setTextFragmenter(new SimpleFragmenter(FRAGMENT_CHARS));
        for (String[] f : new String[][] {{EventFields.ACTION_NAME, IndexFields.ACTION_NAME},
                {EventFields.ERROR_MESSAGE, IndexFields.ERROR_MESSAGE}, {EventFields.ACTION_INPUT, IndexFields.INPUT},
                {EventFields.ACTION_OUTPUT, IndexFields.OUTPUT}, {EventFields.METADATA, IndexFields.METADATA}}) {
            String text = EventDocument.textOf(json.get(f[0]));
            if (text.isEmpty()) {
                continue;
            }
            try {
                String[] fragments = highlighter.getBestFragments(analyzer, f[1], text, MAX_FRAGMENTS);
                List<String> marked = Arrays.stream(fragments).filter(s -> s.contains(PRE)).toList();
                if (!marked.isEmpty()) {
                    out.put(f[1], marked);
                }
            } catch (IOException | InvalidTokenOffsetsException e) {
                // a highlight is a convenience: an event that cannot be highlighted is still a result
            }
        }
        return out;
    }
}
