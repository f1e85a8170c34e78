package io.trailproof.logging;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Named fields of one log record ({@code request_id}, an access line's {@code status}...): the JSON
 * format writes each as a member of the line's object; the text format shows only the message, which
 * must therefore say everything a reader needs by itself.
 */
public final class LogFields {

    private final Map<String, Object> fields;

    private LogFields(Map<String, Object> fields) {
        this.fields = Collections.unmodifiableMap(fields);
    }

    /** Fields from alternating names and values; a null value leaves its field out. */
    public static LogFields of(Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values come in pairs");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (namesAndValues[i + 1] != null) {
                m.put((String) namesAndValues[i], namesAndValues[i + 1]);
            }
        }
        return new LogFields(m);
    }

    public Map<String, Object> asMap() {
        return fields;
    }

    /** The fields a record carries, or none. */
    static Map<String, Object> of(LogRecord record) {
        Object[] p = record.getParameters();
        return p != null && p.length == 1 && p[0] instanceof LogFields f ? f.fields : Map.of();
    }

    /** Logs {@code message} with these fields (and {@code thrown}, which may be null) to {@code logger}. */
    public void log(Logger logger, Level level, String message, Throwable thrown) {
        if (!logger.isLoggable(level)) {
            return;
        }
        LogRecord r = new LogRecord(level, message);
        r.setLoggerName(logger.getName());
        r.setParameters(new Object[] {this});
        r.setThrown(thrown);
        logger.log(r);
    }
}
