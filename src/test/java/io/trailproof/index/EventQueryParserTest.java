package io.trailproof.index;

import org.apache.lucene.document.LongPoint;
import org.apache.lucene.queryparser.classic.ParseException;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Known answers for the point fields of the query syntax. */
class EventQueryParserTest {

    private static final long DAY = 86_400_000_000L;

    private static String parse(String q) throws ParseException {
        return new EventQueryParser(new IndexAnalyzer()).parse(q).toString();
    }

    private static long micros(String instant) {
        return EventDocument.micros(Instant.parse(instant));
    }

    @Test
    void dateBoundsCoverWholeDaysInUtc() throws Exception {
        long jan1 = micros("2026-01-01T00:00:00Z");
        long feb1 = micros("2026-02-01T00:00:00Z");
        assertThat(parse("timestamp:[2026-01-01 TO 2026-02-01]"))
                .isEqualTo(LongPoint.newRangeQuery("timestamp", jan1, feb1 + DAY - 1).toString());
        assertThat(parse("timestamp:{2026-01-01 TO 2026-02-01}"))
                .isEqualTo(LongPoint.newRangeQuery("timestamp", jan1 + DAY, feb1 - 1).toString());
        assertThat(parse("recorded_at:2026-01-01"))
                .isEqualTo(LongPoint.newRangeQuery("recorded_at", jan1, jan1 + DAY - 1).toString());
    }

    @Test
    void dateTimeBoundsHonourOffsetsAndReadNaiveAsUtc() throws Exception {
        long t = micros("2026-01-01T08:00:00Z");
        assertThat(parse("timestamp:[2026-01-01T10:00:00+02:00 TO 2026-01-01T08:00:00]"))
                .isEqualTo(LongPoint.newRangeQuery("timestamp", t, t).toString());
        assertThat(parse("timestamp:{2026-01-01T08:00:00Z TO *]"))
                .isEqualTo(LongPoint.newRangeQuery("timestamp", t + 1, Long.MAX_VALUE).toString());
    }

    @Test
    void numbersAreExactPointsAndRanges() throws Exception {
        assertThat(parse("sequence:[1 TO 5]")).isEqualTo(LongPoint.newRangeQuery("sequence", 1, 5).toString());
        assertThat(parse("duration_ms:{100 TO *]"))
                .isEqualTo(LongPoint.newRangeQuery("duration_ms", 101, Long.MAX_VALUE).toString());
        assertThat(parse("sequence:7")).isEqualTo(LongPoint.newRangeQuery("sequence", 7, 7).toString());
        assertThat(parse("duration_ms:[* TO 9223372036854775807}"))
                .isEqualTo(LongPoint.newRangeQuery("duration_ms", Long.MIN_VALUE, Long.MAX_VALUE - 1).toString());
    }

    @Test
    void keywordFieldsStayOneTermAndTextIsAnalysed() throws Exception {
        assertThat(parse("agent_id:Agent-007")).isEqualTo("agent_id:Agent-007");
        assertThat(parse("label.env:Prod")).isEqualTo("label.env:Prod");
        assertThat(parse("input:Revenue-Report")).isEqualTo("input:\"revenue report\"");
        assertThat(parse("action_name:Send")).isEqualTo("action_name:send");
    }

    @Test
    void theDefaultFieldSearchesEveryTextFieldAndExplicitFieldsOnlyThemselves() throws Exception {
        String fields = "(action_name error_message input metadata output text)";
        assertThat(parse("Revenue")).isEqualTo("CombinedFieldQuery(" + fields + "(revenue))");
        assertThat(parse("text:Revenue")).isEqualTo(parse("Revenue"));
        assertThat(parse("Revenue-Report")).isEqualTo("text:\"revenue report\" action_name:\"revenue report\" "
                + "error_message:\"revenue report\" input:\"revenue report\" output:\"revenue report\" "
                + "metadata:\"revenue report\"");
        assertThat(parse("\"quarterly revenue\"~2")).contains("text:\"quarterly revenue\"~2")
                .contains("metadata:\"quarterly revenue\"~2");
        assertThat(parse("quart*")).isEqualTo("(text:quart* | action_name:quart* | error_message:quart* | input:quart* "
                + "| output:quart* | metadata:quart*)");
        assertThat(parse("revenu~")).startsWith("(text:revenu~2 | action_name:revenu~2");
        assertThat(parse("/reg.x/")).startsWith("(text:/reg.x/ | action_name:/reg.x/");
        assertThat(parse("text:[a TO b]")).startsWith("(text:[a TO b] | action_name:[a TO b]");
        assertThat(parse("input:revenue")).isEqualTo("input:revenue");
        assertThat(parse("metadata:quart*")).isEqualTo("metadata:quart*");
        assertThat(parse("*:*")).isEqualTo("*:*");
    }

    @Test
    void highlightingKeepsTheDefaultFieldOneField() throws Exception {
        // The highlighter marks a matched term wherever it occurs, so it needs no expansion.
        assertThat(EventQueryParser.forHighlights(new IndexAnalyzer()).parse("revenue AND \"a b\" AND q*").toString())
                .isEqualTo("+text:revenue +text:\"a b\" +text:q*");
    }

    @Test
    void refusesPatternsAndWordsOnPointFields() {
        assertThatThrownBy(() -> parse("sequence:1*")).hasMessageContaining("sequence is a number field");
        assertThatThrownBy(() -> parse("timestamp:2026*")).hasMessageContaining("timestamp is a time field");
        assertThatThrownBy(() -> parse("timestamp:[2026-02-30 TO *]")).hasMessageContaining("timestamp takes a date");
        assertThatThrownBy(() -> parse("duration_ms:[1.5 TO 2]")).hasMessageContaining("whole numbers");
    }
}
