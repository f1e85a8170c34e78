package io.trailproof.index;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.StoredEvent;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.highlight.Highlighter;
import org.apache.lucene.search.highlight.QueryScorer;
import org.apache.lucene.search.highlight.SimpleFragmenter;
import org.apache.lucene.search.highlight.SimpleHTMLFormatter;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Which fields a query highlights, on one event, with the parser the search uses for highlighting. */
class HighlightsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final IndexAnalyzer ANALYZER = new IndexAnalyzer();

    private static StoredEvent event(String words) throws Exception {
        ObjectNode e = JSON.createObjectNode().put("agent_id", "agent-7").put("action_type", "TOOL_RESULT")
                .put("action_name", "search_web");
        e.putObject("action_input").put("q", "weather in lisbon");
        e.putObject("action_output").put("text", words);
        e.putObject("labels").put("env", "prod");
        return StoredEvent.seal(EventValidator.validate(e), "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00",
                "2026-11-22T00:00:00.000000Z", 1, EventFields.GENESIS_PREV_HASH, 0);
    }

    private static Map<String, List<String>> highlights(String q, StoredEvent event) throws Exception {
        return new Highlights(ANALYZER).of(RequestQuery.parse(q, EventQueryParser.forHighlights(ANALYZER)), event);
    }

    private static String manyWords(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append('w').append(i).append(' ');
        }
        return b.toString();
    }

    private static List<String> fragments(QueryScorer scorer, String text) throws Exception {
        Highlighter h = new Highlighter(new SimpleHTMLFormatter(Highlights.PRE, Highlights.POST), scorer);
        h.setTextFragmenter(new SimpleFragmenter(40));
        return List.of(h.getBestFragments(ANALYZER, IndexFields.OUTPUT, text, 3));
    }

    /** The reference: Lucene's own extractor, which rewrites plain terms against an in-memory index of the text. */
    @Test
    void termClausesAreScoredAsLucenesOwnExtractorScoresThem() throws Exception {
        String text = "the weather in lisbon is sunny and warm, weather permitting; then lisbon again, "
                + "and more weather over the river until the evening, sunny still";
        for (String q : List.of("weather", "output:weather AND agent_id:agent-7", "output:(lisbon OR sunny)",
                "weather^3 sunny", "output:weather -output:sunny", "\"in lisbon\" OR warm", "input:weather",
                "agent_id:agent-7 AND action_name:op13")) {
            Query query = RequestQuery.parse(q, EventQueryParser.forHighlights(ANALYZER));
            assertThat(fragments(new Highlights.FieldScorer(query, IndexFields.OUTPUT), text)).as(q)
                    .isEqualTo(fragments(new QueryScorer(query, IndexFields.OUTPUT, IndexFields.TEXT), text));
        }
    }

    @Test
    void aPatternOnOneFieldMarksOnlyThatField() throws Exception {
        StoredEvent e = event("sunny and warm");
        assertThat(highlights("output:*", e)).containsOnlyKeys("output");
        assertThat(highlights("input:weath*", e)).containsOnlyKeys("input");
        assertThat(highlights("input:weath*", e).get("input")).containsExactly("<em>weather</em> in lisbon");
        assertThat(highlights("output:warm", e)).containsOnlyKeys("output");
        // The default field marks a match wherever it occurs.
        assertThat(highlights("w*", e)).containsOnlyKeys("input", "output");
    }

    @Test
    void keywordFieldsAreMarkedByWildcardsPrefixesAndRanges() throws Exception {
        StoredEvent e = event("x");
        assertThat(highlights("action_type:TOOL_*", e)).containsEntry("action_type", List.of("<em>TOOL_RESULT</em>"));
        assertThat(highlights("agent_id:agent?7", e)).containsEntry("agent_id", List.of("<em>agent-7</em>"));
        assertThat(highlights("label.env:[p TO q]", e)).containsEntry("label.env", List.of("<em>prod</em>"));
        assertThat(highlights("action_type:LLM_*", e)).doesNotContainKey("action_type");
        assertThat(highlights("x AND NOT action_type:TOOL_*", e)).doesNotContainKey("action_type");
    }

    @Test
    void patternsMatchingMoreThan1024WordsStillHighlight() throws Exception {
        StoredEvent e = event(manyWords(1_100));
        for (String q : List.of("*", "output:*", "w*", "output:w1*", "output:[a TO z]", "output:[* TO *]", "/w[0-9]+/")) {
            assertThat(highlights(q, e).get("output")).as(q).isNotEmpty();
        }
    }

    /**
     * A text field no positive clause is on is not analysed at all; the reference highlights every
     * text field as the search did before, with Lucene's highlighter: the same highlights, over
     * queries on keyword fields, on one text field, on the default field, patterns, phrases and
     * negations, for events with text in all five fields.
     */
    @Test
    void fieldsNoClauseIsOnAreSkippedWithoutChangingAHighlight() throws Exception {
        ObjectNode e = JSON.createObjectNode().put("agent_id", "agent-7").put("action_type", "TOOL_CALL")
                .put("action_name", "op13 lookup").put("action_status", "ERROR")
                .put("error_message", "lookup failed for op13: timeout");
        e.putObject("action_input").put("q", "lookup op13 revenue in lisbon");
        e.putObject("action_output").put("text", "revenue grew; op13 done, lookup again later");
        e.putObject("metadata").put("note", "revenue op13 lookup metadata");
        StoredEvent event = StoredEvent.seal(EventValidator.validate(e), "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00",
                "2026-11-22T00:00:00.000000Z", 1, EventFields.GENESIS_PREV_HASH, 0);
        List<String> queries = List.of("agent_id:agent-7 AND action_name:op13", "agent_id:agent-7", "op13",
                "revenue AND agent_id:agent-7", "output:revenue", "input:look*", "metadata:\"op13 lookup\"",
                "error_message:timeout OR output:later", "op13 AND NOT output:revenue", "-metadata:revenue",
                "action_status:ERROR", "*:*", "agent_id:agent-7 AND NOT (input:lisbon)", "look*", "revenue~1");
        for (String q : queries) {
            Query query = RequestQuery.parse(q, EventQueryParser.forHighlights(ANALYZER));
            Map<String, List<String>> got = new Highlights(ANALYZER).of(query, event);
            for (String[] f : new String[][] {{"action_name", IndexFields.ACTION_NAME},
                    {"error_message", IndexFields.ERROR_MESSAGE}, {"action_input", IndexFields.INPUT},
                    {"action_output", IndexFields.OUTPUT}, {"metadata", IndexFields.METADATA}}) {
                String text = EventDocument.textOf(event.json().get(f[0]));
                Highlighter h = new Highlighter(new SimpleHTMLFormatter(Highlights.PRE, Highlights.POST),
                        Highlights::escape, new Highlights.FieldScorer(query, f[1]));
                h.setTextFragmenter(new SimpleFragmenter(Highlights.FRAGMENT_CHARS));
                List<String> marked = Stream.of(h.getBestFragments(ANALYZER, f[1], text, Highlights.MAX_FRAGMENTS))
                        .filter(s -> s.contains(Highlights.PRE)).toList();
                assertThat(got.get(f[1])).as(q + ", " + f[1]).isEqualTo(marked.isEmpty() ? null : marked);
            }
        }
        assertThat(new Highlights(ANALYZER).of(RequestQuery.parse("agent_id:agent-7 AND action_name:op13",
                EventQueryParser.forHighlights(ANALYZER)), event)).containsOnlyKeys("agent_id", "action_name");
    }
}
