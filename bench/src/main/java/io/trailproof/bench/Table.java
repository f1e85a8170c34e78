package io.trailproof.bench;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The one table the suite prints: figure, target, verdict, and the baseline beside it as a ratio. */
final class Table {

    private record Row(String name, double value, String unit, String target, boolean met, double baseline,
                       String baselineName) {
    }

    private final List<Row> rows = new ArrayList<>();

    void add(String name, double value, String unit, String target, boolean met, double baseline, String baselineName) {
        rows.add(new Row(name, value, unit, target, met, baseline, baselineName));
    }

    /** JMH results (-rf json): average time per operation, in the unit JMH used. */
    void addJmh(JsonNode results) {
        for (JsonNode r : results) {
            String name = r.get("benchmark").asText().replaceFirst(".*\\.", "jmh ");
            JsonNode m = r.get("primaryMetric");
            rows.add(new Row(name, m.get("score").asDouble(), m.get("scoreUnit").asText(), "", true, 0, ""));
        }
    }

    String render(String machine) {
        StringBuilder b = new StringBuilder();
        b.append("machine: ").append(machine).append('\n');
        b.append(String.format(Locale.ROOT, "| %-44s | %14s | %-8s | %-11s | %-6s | %-34s |%n", "figure", "value", "unit",
                "target", "met", "baseline (same run) and ratio"));
        b.append("|").append("-".repeat(46)).append("|").append("-".repeat(16)).append("|").append("-".repeat(10))
                .append("|").append("-".repeat(13)).append("|").append("-".repeat(8)).append("|").append("-".repeat(36))
                .append("|\n");
        for (Row r : rows) {
            String base = r.baseline > 0 ? String.format(Locale.ROOT, "%,.0f/s %s: %.2fx", r.baseline, r.baselineName,
                    r.value / r.baseline) : "";
            b.append(String.format(Locale.ROOT, "| %-44s | %,14.3f | %-8s | %-11s | %-6s | %-34s |%n", r.name, r.value,
                    r.unit, r.target, r.target.isEmpty() ? "" : r.met ? "yes" : "MISSED", base));
        }
        return b.toString();
    }
}
