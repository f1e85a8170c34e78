package io.trailproof.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.trailproof.core.event.EventFields;
import io.trailproof.index.SearchIndex;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import org.xnio.IoUtils;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code format=ndjson} and {@code format=csv} of {@code GET /v1/search} and {@code GET /v1/events}
 * (src/site/console.md): every match, up to {@link #MAX_ROWS}, in the order of the JSON answer, streamed.
 * The index gives only the matches' log positions; the events are read from the log and written a
 * few at a time, so memory stays flat whatever the number of rows (a long per match, not an event).
 */
final class StreamedMatches {

    /** Most rows one answer streams; {@code X-Total-Count} still tells how many matched. */
    static final int MAX_ROWS = 100_000;

    /**
     * The CSV columns, in order (src/site/search.md): the last, {@code erased}, holds the id of the
     * erasure that removed the event's content, empty when none did (src/site/erasure.md#erased-event).
     */
    static final List<String> CSV_COLUMNS = List.of(EventFields.LOG_INDEX, EventFields.ID, EventFields.TIMESTAMP,
            EventFields.AGENT_ID, EventFields.SEQUENCE, EventFields.ACTION_TYPE, EventFields.ACTION_NAME,
            EventFields.ACTION_STATUS, EventFields.DURATION_MS, EventFields.HASH, EventFields.ERASED);

    private static final System.Logger LOG = System.getLogger(StreamedMatches.class.getName());
    private static final JsonFactory JSON = new JsonFactory();
    private static final byte[] CRLF = {'\r', '\n'};

    /** Reads one stored event from the log. */
    @FunctionalInterface
    interface LogPayloads {
        byte[] at(long logIndex) throws IOException;
    }

    enum Format {
        NDJSON("application/x-ndjson", "ndjson"),
        CSV("text/csv; charset=utf-8", "csv");

        final String contentType;
        final String extension;

        Format(String contentType, String extension) {
            this.contentType = contentType;
            this.extension = extension;
        }
    }

    private StreamedMatches() {
    }

    /** The format asked by {@code format=}, or null for the ordinary JSON answer. */
    static Format format(Params params) throws ApiException {
        String f = params.optional("format");
        if (f == null || f.equals("json")) {
            return null;
        }
        return switch (f) {
            case "ndjson" -> Format.NDJSON;
            case "csv" -> Format.CSV;
            default -> throw ApiException.badRequest("parameter format must be json, ndjson or csv, got '"
                    + Params.shorten(f) + "'");
        };
    }

    /**
     * The answer streaming {@code matches} (positions only) as {@code format}; it is written by a
     * worker thread with blocking output, so a slow reader holds that thread, never an I/O thread.
     */
    static Router.Answer answer(SearchIndex.Results matches, Format format, LogPayloads log, String name) {
        // name: what the download's file is called after ("search", "events")
        return ex -> {
            ex.setStatusCode(200);
            ex.getResponseHeaders().put(Headers.CONTENT_TYPE, format.contentType);
            ex.getResponseHeaders().put(new HttpString("X-Total-Count"), Long.toString(matches.total()));
            ex.getResponseHeaders().put(Headers.CONTENT_DISPOSITION, "attachment; filename=\"trailproof-" + name + "."
                    + format.extension + "\"");
            ex.getConnection().getWorker().execute(() -> stream(ex, matches, format, log));
        };
    }

    private static void stream(HttpServerExchange ex, SearchIndex.Results matches, Format format, LogPayloads log) {
        try {
            ex.startBlocking();
            OutputStream out = new BufferedOutputStream(ex.getOutputStream(), 64 * 1024);
            if (format == Format.CSV) {
                out.write(String.join(",", CSV_COLUMNS).getBytes(StandardCharsets.US_ASCII));
                out.write(CRLF);
            }
            for (SearchIndex.Result r : matches.results()) {
                byte[] event = log.at(r.logIndex());
                if (format == Format.NDJSON) {
                    out.write(event);
                    out.write('\n');
                } else {
                    out.write(csvRow(event).getBytes(StandardCharsets.UTF_8));
                    out.write(CRLF);
                }
            }
            out.close();
        } catch (IOException | RuntimeException | Error e) {
            // The answer has started: a status can no longer say so. Cutting the connection makes the
            // client see an incomplete transfer rather than a file that merely ends early.
            LOG.log(System.Logger.Level.WARNING, "streaming " + matches.results().size() + " matches failed after "
                    + "the answer started: " + e);
            IoUtils.safeClose(ex.getConnection());
        } finally {
            ex.endExchange();
        }
    }

    /** The CSV row of one stored event: its columns' values, absent ones empty. */
    static String csvRow(byte[] event) throws IOException {
        String[] cells = new String[CSV_COLUMNS.size()];
        try (JsonParser p = JSON.createParser(event)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("a stored event is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                int column = CSV_COLUMNS.indexOf(p.currentName());
                JsonToken value = p.nextToken();
                if (column >= 0 && value.isScalarValue() && value != JsonToken.VALUE_NULL) {
                    cells[column] = p.getText();
                } else if (column >= 0 && value == JsonToken.START_OBJECT && EventFields.ERASED.equals(p.currentName())) {
                    cells[column] = erasureId(p);
                } else {
                    p.skipChildren();
                }
            }
        }
        StringBuilder row = new StringBuilder(256);
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                row.append(',');
            }
            appendCell(row, cells[i]);
        }
        return row.toString();
    }

    /** The {@code erasure_id} of the {@code erased} object the parser is at; leaves the parser after it. */
    private static String erasureId(JsonParser p) throws IOException {
        String id = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if ("erasure_id".equals(name) && v == JsonToken.VALUE_STRING) {
                id = p.getText();
            } else {
                p.skipChildren();
            }
        }
        return id;
    }

    /**
     * One RFC 4180 cell. A value a spreadsheet would run as a formula (it starts with {@code =},
     * {@code +}, {@code -} or {@code @}, or a tab or carriage return, as OWASP lists) gets a leading
     * {@code '}, so opening the file never runs what an agent wrote.
     */
    static void appendCell(StringBuilder row, String value) {
        if (value == null || value.isEmpty()) {
            return;
        }
        char first = value.charAt(0);
        String text = first == '=' || first == '+' || first == '-' || first == '@' || first == '\t' || first == '\r'
                ? "'" + value : value;
        if (text.indexOf(',') < 0 && text.indexOf('"') < 0 && text.indexOf('\n') < 0 && text.indexOf('\r') < 0) {
            row.append(text);
            return;
        }
        row.append('"').append(text.replace("\"", "\"\"")).append('"');
    }
}
