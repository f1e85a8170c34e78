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

    private record Latency(String endpoint, String client, int connections, double rate, double p50, double p90,
                           double p99, double max, String target, boolean met) {
    }

    private final List<Row> rows = new ArrayList<>();
    private final List<Latency> latencies = new ArrayList<>();

    void add(String name, double value, String unit, String target, boolean met, double baseline, String baselineName) {
        rows.add(new Row(name, value, unit, target, met, baseline, baselineName));
    }

    /** One latency distribution (ms) of one endpoint under one client, with the request rate it reached. */
    void addLatency(String endpoint, String client, int connections, double rate, double p50, double p90, double p99,
                    double max, String target, boolean met) {
        latencies.add(new Latency(endpoint, client, connections, rate, p50, p90, p99, max, target, met));
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
        if (!latencies.isEmpty()) {
            b.append('\n').append(String.format(Locale.ROOT, "| %-40s | %-11s | %5s | %9s | %7s | %7s | %7s | %8s | %-11s | %-6s |%n",
                    "latency (ms), closed loop", "client", "conns", "req/s", "p50", "p90", "p99", "max", "target p99", "met"));
            b.append("|").append("-".repeat(42)).append("|").append("-".repeat(13)).append("|").append("-".repeat(7))
                    .append("|").append("-".repeat(11)).append("|").append("-".repeat(9)).append("|").append("-".repeat(9))
                    .append("|").append("-".repeat(9)).append("|").append("-".repeat(10)).append("|").append("-".repeat(13))
                    .append("|").append("-".repeat(8)).append("|\n");
            for (Latency l : latencies) {
                b.append(String.format(Locale.ROOT, "| %-40s | %-11s | %5d | %,9.0f | %7.3f | %7.3f | %7.3f | %8.3f | %-11s | %-6s |%n",
                        l.endpoint, l.client, l.connections, l.rate, l.p50, l.p90, l.p99, l.max, l.target,
                        l.target.isEmpty() ? "" : l.met ? "yes" : "MISSED"));
            }
        }
        return b.toString();
    }
}
