package io.trailproof.metrics;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format 0.0.4, for tests: every line must be a
 * {@code # HELP}, a {@code # TYPE} or a sample; a sample must belong to the family whose TYPE came
 * before it (histograms: {@code _bucket} with {@code le}, {@code _sum}, {@code _count}); a family is
 * declared once; no series repeats; values parse. Anything else throws with the line number.
 */
public final class PrometheusText {

    private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
    private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") (.*)");
    private static final Pattern TYPE = Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped)");
    private static final Pattern SAMPLE = Pattern.compile("(" + NAME + ")(\\{(.*)\\})? (\\S+)( -?[0-9]+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\\\n]|\\\\[\\\\\"n])*)\"(,|$)");

    public record Sample(String name, Map<String, String> labels, double value) {
    }

    public record Family(String name, String type, String help, List<Sample> samples) {
    }

    /** Families by name, in the order they appear. */
    public static Map<String, Family> parse(String text) {
        if (!text.isEmpty() && !text.endsWith("\n")) {
            throw new IllegalArgumentException("the exposition does not end with a line feed");
        }
        Map<String, Family> families = new LinkedHashMap<>();
        Map<String, String> helps = new LinkedHashMap<>();
        Set<String> series = new HashSet<>();
        Family current = null;
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length - 1; i++) {
            String line = lines[i];
            int n = i + 1;
            Matcher m;
            if ((m = HELP.matcher(line)).matches()) {
                if (helps.put(m.group(1), m.group(2)) != null) {
                    throw bad(n, "second HELP for " + m.group(1), line);
                }
            } else if ((m = TYPE.matcher(line)).matches()) {
                if (families.containsKey(m.group(1))) {
                    throw bad(n, "second TYPE for " + m.group(1), line);
                }
                current = new Family(m.group(1), m.group(2), helps.get(m.group(1)), new ArrayList<>());
                families.put(current.name(), current);
            } else if (line.startsWith("#")) {
                throw bad(n, "a comment that is neither HELP nor TYPE", line);
            } else if ((m = SAMPLE.matcher(line)).matches()) {
                if (current == null) {
                    throw bad(n, "a sample before any TYPE", line);
                }
                String name = m.group(1);
                Map<String, String> labels = labels(n, line, m.group(3));
                if (!belongs(current, name, labels)) {
                    throw bad(n, "sample " + name + " does not belong to the " + current.type() + " " + current.name(), line);
                }
                if (!series.add(name + labels)) {
                    throw bad(n, "the same series twice", line);
                }
                current.samples().add(new Sample(name, labels, value(n, line, m.group(4))));
            } else {
                throw bad(n, "not a HELP, TYPE or sample line", line);
            }
        }
        return families;
    }

    private static boolean belongs(Family f, String name, Map<String, String> labels) {
        return switch (f.type()) {
            case "histogram" -> (name.equals(f.name() + "_bucket") && labels.containsKey("le"))
                    || name.equals(f.name() + "_sum") || name.equals(f.name() + "_count");
            case "summary" -> name.equals(f.name()) || name.equals(f.name() + "_sum") || name.equals(f.name() + "_count");
            default -> name.equals(f.name());
        };
    }

    private static Map<String, String> labels(int n, String line, String body) {
        Map<String, String> labels = new TreeMap<>();
        if (body == null || body.isEmpty()) {
            return labels;
        }
        Matcher m = LABEL.matcher(body);
        int at = 0;
        while (at < body.length()) {
            if (!m.find(at) || m.start() != at) {
                throw bad(n, "a malformed label set", line);
            }
            String value = m.group(2).replace("\\n", "\n").replace("\\\"", "\"").replace("\\\\", "\\");
            if (labels.put(m.group(1), value) != null) {
                throw bad(n, "label " + m.group(1) + " twice", line);
            }
            at = m.end();
            if (m.group(3).isEmpty() && at != body.length()) {
                throw bad(n, "a malformed label set", line);
            }
        }
        return labels;
    }

    private static double value(int n, String line, String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> {
                try {
                    yield Double.parseDouble(text);
                } catch (NumberFormatException e) {
                    throw bad(n, "a value that is not a number", line);
                }
            }
        };
    }

    private static IllegalArgumentException bad(int line, String what, String text) {
        return new IllegalArgumentException("line " + line + ": " + what + ": " + text);
    }

    /** The value of the sample {@code name} with exactly {@code labels}, or 0 when absent. */
    public static double value(Map<String, Family> families, String name, Map<String, String> labels) {
        for (Family f : families.values()) {
            for (Sample s : f.samples()) {
                if (s.name().equals(name) && s.labels().equals(new TreeMap<>(labels))) {
                    return s.value();
                }
            }
        }
        return 0;
    }
}
