package io.trailproof.logging;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * {@code log.format=text}: {@code <UTC time> <LEVEL> <logger>: <message>}, then the stack trace on
 * the following lines when there is one. Fields ({@link LogFields}) are not repeated: the message
 * says what they say.
 */
public final class TextLogFormatter extends Formatter {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    @Override
    public String format(LogRecord record) {
        StringBuilder b = new StringBuilder(160);
        b.append(TIME.format(record.getInstant())).append(' ').append(JsonLogFormatter.level(record.getLevel()))
                .append(' ').append(record.getLoggerName()).append(": ")
                .append(LogFields.of(record).isEmpty() ? formatMessage(record) : record.getMessage()).append('\n');
        if (record.getThrown() != null) {
            StringWriter trace = new StringWriter();
            record.getThrown().printStackTrace(new PrintWriter(trace));
            b.append(trace);
        }
        return b.toString();
    }
}
