package io.trailproof.llmgateway;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a complete {@code text/event-stream} body into its events, as the WHATWG "server-sent
 * events" rules do: lines end with CRLF, LF or CR; a blank line ends an event; {@code data} lines of
 * one event are joined with LF; a line starting with {@code :} is a comment; a field name without a
 * colon has an empty value, and one space after the colon is not part of the value. An event without
 * data is not dispatched. A last event without its blank line is still returned (a stream cut short
 * is recorded with what arrived).
 */
final class SseEvents {

    /** One dispatched event: its {@code event} field (null when absent) and its data. */
    record Event(String event, String data) {
    }

    private SseEvents() {
    }

    static List<Event> parse(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        List<Event> events = new ArrayList<>();
        String type = null;
        StringBuilder data = null;
        int i = 0;
        int n = text.length();
        if (n > 0 && text.charAt(0) == '\uFEFF') {
            i = 1;
        }
        while (i <= n) {
            int end = i;
            while (end < n && text.charAt(end) != '\n' && text.charAt(end) != '\r') {
                end++;
            }
            String line = text.substring(i, end);
            if (end < n && text.charAt(end) == '\r' && end + 1 < n && text.charAt(end + 1) == '\n') {
                i = end + 2;
            } else {
                i = end + 1;
            }
            boolean last = end >= n;
            if (line.isEmpty()) {
                if (data != null) {
                    events.add(new Event(type, data.toString()));
                }
                type = null;
                data = null;
            } else if (line.charAt(0) != ':') {
                int colon = line.indexOf(':');
                String field = colon < 0 ? line : line.substring(0, colon);
                String value = colon < 0 ? "" : line.substring(colon + 1);
                if (value.startsWith(" ")) {
                    value = value.substring(1);
                }
                if ("event".equals(field)) {
                    type = value;
                } else if ("data".equals(field)) {
                    if (data == null) {
                        data = new StringBuilder(value);
                    } else {
                        data.append('\n').append(value);
                    }
                }
            }
            if (last) {
                break;
            }
        }
        if (data != null) {
            events.add(new Event(type, data.toString()));
        }
        return events;
    }
}
