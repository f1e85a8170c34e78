package io.trailproof.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogRecord;

/**
 * {@code log.format=json} (src/site/operations.md): one JSON object a line with {@code time} (RFC 3339, UTC,
 * milliseconds), {@code level} (ERROR, WARN, INFO, DEBUG, TRACE), {@code logger}, {@code message},
 * then the record's {@link LogFields}, then {@code exception} (the stack trace as one string) when
 * there is one. Line breaks inside values are escaped, so a line is always one whole record.
 */
public final class JsonLogFormatter extends Formatter {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    @Override
    public String format(LogRecord record) {
        StringBuilder b = new StringBuilder(256);
        b.append("{\"time\":\"").append(TIME.format(record.getInstant())).append('"');
        member(b, "level", level(record.getLevel()));
        member(b, "logger", record.getLoggerName() == null ? "" : record.getLoggerName());
        Map<String, Object> fields = LogFields.of(record);
        member(b, "message", fields.isEmpty() ? formatMessage(record) : record.getMessage());
        for (Map.Entry<String, Object> f : fields.entrySet()) {
            if (f.getValue() instanceof Number || f.getValue() instanceof Boolean) {
                b.append(",\"");
                escape(b, f.getKey());
                b.append("\":").append(f.getValue());
            } else {
                member(b, f.getKey(), String.valueOf(f.getValue()));
            }
        }
        if (record.getThrown() != null) {
            StringWriter trace = new StringWriter();
            record.getThrown().printStackTrace(new PrintWriter(trace));
            member(b, "exception", trace.toString().stripTrailing());
        }
        return b.append("}\n").toString();
    }

    /** JUL levels as the names log pipelines expect. */
    static String level(Level level) {
        int v = level.intValue();
        if (v >= Level.SEVERE.intValue()) {
            return "ERROR";
        } else if (v >= Level.WARNING.intValue()) {
            return "WARN";
        } else if (v >= Level.INFO.intValue()) {
            return "INFO";
        } else if (v >= Level.FINE.intValue()) {
            return "DEBUG";
        }
        return "TRACE";
    }

    private static void member(StringBuilder b, String name, String value) {
        b.append(",\"");
        escape(b, name);
        b.append("\":\"");
        escape(b, value == null ? "" : value);
        b.append('"');
    }

    /** RFC 8259 string escaping; control characters as \\u00XX, so no raw line break reaches the output. */
    static void escape(StringBuilder b, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
    }

    /** For tests: the time format. */
    static String time(Instant t) {
        return TIME.format(t);
    }
}
