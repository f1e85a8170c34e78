package io.trailproof.logging;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import static org.assertj.core.api.Assertions.assertThat;

class JsonLogFormatterTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void oneObjectALineWithTheRequiredMembersFieldsAndTheException() throws Exception {
        LogRecord r = new LogRecord(Level.SEVERE, "broke \"badly\"\non two lines");
        r.setInstant(Instant.parse("2026-11-25T18:00:00.123456Z"));
        r.setLoggerName("io.trailproof.x");
        r.setParameters(new Object[] {LogFields.of("request_id", "abc-1", "status", 500, "absent", null)});
        r.setThrown(new IllegalStateException("why\tnot"));
        String line = new JsonLogFormatter().format(r);
        assertThat(line).endsWith("}\n");
        assertThat(line.substring(0, line.length() - 1)).doesNotContain("\n");
        JsonNode o = JSON.readTree(line);
        assertThat(o.get("time").asText()).isEqualTo("2026-11-25T18:00:00.123Z");
        assertThat(o.get("level").asText()).isEqualTo("ERROR");
        assertThat(o.get("logger").asText()).isEqualTo("io.trailproof.x");
        assertThat(o.get("message").asText()).isEqualTo("broke \"badly\"\non two lines");
        assertThat(o.get("request_id").asText()).isEqualTo("abc-1");
        assertThat(o.get("status").asInt()).isEqualTo(500);
        assertThat(o.has("absent")).isFalse();
        assertThat(o.get("exception").asText()).startsWith("java.lang.IllegalStateException: why\tnot").contains("\tat ");
    }

    @Test
    void levelsAndControlCharacters() throws Exception {
        assertThat(JsonLogFormatter.level(Level.WARNING)).isEqualTo("WARN");
        assertThat(JsonLogFormatter.level(Level.INFO)).isEqualTo("INFO");
        assertThat(JsonLogFormatter.level(Level.FINE)).isEqualTo("DEBUG");
        assertThat(JsonLogFormatter.level(Level.FINEST)).isEqualTo("TRACE");
        LogRecord r = new LogRecord(Level.INFO, "bell\u0007 sep\u2028 {0}");
        r.setLoggerName("l");
        String line = new JsonLogFormatter().format(r);
        assertThat(line).contains("\\u0007").contains("\\u2028");
        assertThat(JSON.readTree(line).get("message").asText()).isEqualTo("bell\u0007 sep\u2028 {0}");
    }

    @Test
    void printedLinesBecomeRecordsAndAPartialLineWaitsForItsEnd() throws Exception {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        PrintStream target = new PrintStream(sink, true, StandardCharsets.UTF_8);
        PrintStream out = new PrintStream(new ServiceLogging.LineRecords(target, new JsonLogFormatter(), "stdout",
                Level.INFO), true, StandardCharsets.UTF_8);
        out.print("half ");
        out.flush();
        assertThat(sink.size()).isZero();
        out.println("a line \u00e9");
        out.print("two\r\nthree\n");
        String[] lines = sink.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(3);
        assertThat(JSON.readTree(lines[0]).get("message").asText()).isEqualTo("half a line \u00e9");
        assertThat(JSON.readTree(lines[0]).get("logger").asText()).isEqualTo("stdout");
        assertThat(JSON.readTree(lines[1]).get("message").asText()).isEqualTo("two");
        assertThat(JSON.readTree(lines[2]).get("message").asText()).isEqualTo("three");
    }

    @Test
    void textFormatShowsTheMessageAndTheTrace() {
        LogRecord r = new LogRecord(Level.WARNING, "GET / 200");
        r.setInstant(Instant.parse("2026-11-25T18:00:00Z"));
        r.setLoggerName("io.trailproof.access");
        r.setParameters(new Object[] {LogFields.of("status", 200)});
        assertThat(new TextLogFormatter().format(r))
                .isEqualTo("2026-11-25T18:00:00.000Z WARN io.trailproof.access: GET / 200\n");
    }
}
