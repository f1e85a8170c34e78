package io.trailproof.http;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The CSV of src/site/console.md: RFC 4180 quoting, and no cell a spreadsheet would run as a formula. */
class StreamedMatchesTest {

    private static String cell(String value) {
        StringBuilder b = new StringBuilder();
        StreamedMatches.appendCell(b, value);
        return b.toString();
    }

    @Test
    void cellsAreQuotedOnlyWhenRfc4180AsksAndQuotesAreDoubled() {
        assertThat(cell("plain")).isEqualTo("plain");
        assertThat(cell("a,b")).isEqualTo("\"a,b\"");
        assertThat(cell("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
        assertThat(cell("two\nlines")).isEqualTo("\"two\nlines\"");
        assertThat(cell("cr\rhere")).isEqualTo("\"cr\rhere\"");
        assertThat(cell(null)).isEmpty();
        assertThat(cell("")).isEmpty();
    }

    @Test
    void aCellThatWouldRunAsAFormulaGetsALeadingApostrophe() {
        assertThat(cell("=HYPERLINK(\"http://x\")")).isEqualTo("\"'=HYPERLINK(\"\"http://x\"\")\"");
        assertThat(cell("+1+1")).isEqualTo("'+1+1");
        assertThat(cell("-2")).isEqualTo("'-2");
        assertThat(cell("@SUM(A1)")).isEqualTo("'@SUM(A1)");
        assertThat(cell("\tcmd")).isEqualTo("'\tcmd");
        assertThat(cell("a=b")).isEqualTo("a=b");
    }

    @Test
    void aRowHoldsTheColumnsInOrderAndLeavesAbsentOnesEmpty() throws Exception {
        String event = "{\"action_input\":{\"x\":[1,2]},\"action_name\":\"=cmd|' /C calc'!A0\",\"action_status\":\"success\","
                + "\"action_type\":\"TOOL_CALL\",\"agent_id\":\"a,b\",\"hash\":\"ab12\",\"id\":\"0190\",\"log_index\":7,"
                + "\"sequence\":3,\"timestamp\":\"2026-01-01T00:00:00Z\"}";
        assertThat(StreamedMatches.csvRow(event.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo("7,0190,2026-01-01T00:00:00Z,\"a,b\",3,TOOL_CALL,'=cmd|' /C calc'!A0,success,,ab12,");
        assertThat(String.join(",", StreamedMatches.CSV_COLUMNS)).isEqualTo("log_index,id,timestamp,agent_id,sequence,"
                + "action_type,action_name,action_status,duration_ms,hash,erased");
        String erased = "{\"agent_id\":\"a\",\"erased\":{\"at\":\"2026-01-02T00:00:00.000000Z\",\"erasure_id\":\"0191\","
                + "\"fields\":[\"action_name\",\"timestamp\"]},\"hash\":\"ab12\",\"id\":\"0190\",\"log_index\":7,"
                + "\"sequence\":3}";
        assertThat(StreamedMatches.csvRow(erased.getBytes(StandardCharsets.UTF_8))).isEqualTo("7,0190,,a,3,,,,,ab12,0191");
    }
}
