package io.trailproof.index;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.util.BytesRef;

import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Map;

/**
 * How one stored event becomes a Lucene document (src/site/search.md#fields). Each text value is inverted once as
 * text: the free text in its own field, the keyword and label values in {@code text} (and each as one
 * exact term in its keyword field). Nothing is stored for display: the API reads events back from the
 * log by {@code log_index}, which is kept as a doc value.
 */
final class EventDocument {

    private EventDocument() {
    }

    private static final JsonFactory JSON = new JsonFactory();

    /** Keyword fields: the event field and the index field it feeds. */
    private static final Map<String, String> KEYWORDS = Map.of(
            EventFields.AGENT_ID, IndexFields.AGENT_ID, EventFields.SESSION_ID, IndexFields.SESSION_ID,
            EventFields.SOURCE, IndexFields.SOURCE, EventFields.CAPTURE_METHOD, IndexFields.CAPTURE_METHOD,
            EventFields.ACTION_TYPE, IndexFields.ACTION_TYPE, EventFields.ACTION_STATUS, IndexFields.ACTION_STATUS);

    /** Analysed text fields: the event field and the index field it feeds. */
    private static final Map<String, String> TEXTS = Map.of(
            EventFields.ACTION_NAME, IndexFields.ACTION_NAME, EventFields.ERROR_MESSAGE, IndexFields.ERROR_MESSAGE,
            EventFields.ACTION_INPUT, IndexFields.INPUT, EventFields.ACTION_OUTPUT, IndexFields.OUTPUT,
            EventFields.METADATA, IndexFields.METADATA);

    /**
     * A document and the stored {@code hash} of its event (null for the placeholder of an unreadable
     * entry); {@code trail} when it is a record of the trail of who looked (agent
     * {@value EventFields#ACCESS_AGENT}), which {@link LuceneEventIndex} keeps in an index of its own.
     */
    record Built(Document document, String hash, boolean trail) {

        Built(Document document) {
            this(document, null, false);
        }
    }

    /**
     * The document of the log entry at {@code logIndex}, read in one streaming pass over its stored
     * bytes (no tree, no re-validation: the log is the source and the index only follows it). An
     * entry that is not a readable stored event of that index (only a tampered log has one) gets a
     * placeholder that holds its place and nothing else; verification reports it.
     */
    static Built of(long logIndex, byte[] payload) {
        Document doc = new Document();
        doc.add(new LongPoint(IndexFields.LOG_INDEX, logIndex));
        doc.add(new NumericDocValuesField(IndexFields.LOG_INDEX, logIndex));
        Document fields = new Document();
        String id = null;
        String agentId = null;
        String hash = null;
        String recordedAt = null;
        String timestampText = null;
        long sequence = -1;
        long storedIndex = -1;
        StringBuilder keywordText = new StringBuilder();
        StringBuilder labelText = new StringBuilder();
        try (JsonParser p = JSON.createParser(payload)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return new Built(doc);
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                String keywordField = KEYWORDS.get(name);
                String textField = TEXTS.get(name);
                if (keywordField != null && value == JsonToken.VALUE_STRING) {
                    if (name.equals(EventFields.AGENT_ID)) {
                        agentId = p.getText();
                    }
                    keyword(fields, keywordField, p.getText());
                    if (SummaryRequest.facetable(keywordField)) {
                        facetValue(fields, keywordField, p.getText());
                    }
                    append(keywordText, p.getText());
                } else if (textField != null) {
                    StringBuilder text = new StringBuilder();
                    collect(p, value, text);
                    if (!text.isEmpty()) {
                        fields.add(new TextField(textField, text.toString(), Field.Store.NO));
                    }
                } else if (name.equals(EventFields.LABELS) && value == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String key = p.currentName();
                        if (p.nextToken() == JsonToken.VALUE_STRING) {
                            keyword(fields, IndexFields.LABEL_PREFIX + key, p.getText());
                            facetValue(fields, IndexFields.LABEL_PREFIX + key, p.getText());
                            append(labelText, p.getText());
                        } else {
                            p.skipChildren();
                        }
                    }
                } else if (name.equals(EventFields.DURATION_MS) && value == JsonToken.VALUE_NUMBER_INT) {
                    point(fields, IndexFields.DURATION_MS, p.getLongValue());
                } else if (value == JsonToken.VALUE_STRING) {
                    switch (name) {
                        case EventFields.ID -> id = p.getText();
                        case EventFields.HASH -> hash = p.getText();
                        case EventFields.RECORDED_AT -> recordedAt = p.getText();
                        case EventFields.TIMESTAMP -> timestampText = p.getText();
                        default -> { }
                    }
                } else if (value == JsonToken.VALUE_NUMBER_INT && name.equals(EventFields.SEQUENCE)) {
                    sequence = p.getLongValue();
                } else if (value == JsonToken.VALUE_NUMBER_INT && name.equals(EventFields.LOG_INDEX)) {
                    storedIndex = p.getLongValue();
                } else {
                    p.skipChildren();
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT) {
                return new Built(doc);
            }
        } catch (IOException | RuntimeException e) {
            return new Built(doc);
        }
        if (storedIndex != logIndex || id == null || hash == null || recordedAt == null || sequence < 1) {
            return new Built(doc);
        }
        long recorded;
        long timestamp;
        try {
            recorded = micros(recordedAt);
            timestamp = timestampText == null || timestampText.equals(recordedAt) ? recorded
                    : micros(EventTime.parseTimestamp(timestampText));
        } catch (DateTimeParseException | ArithmeticException e) {
            return new Built(doc);
        }
        keyword(doc, IndexFields.ID, id);
        keyword(doc, IndexFields.HASH, hash);
        fields.forEach(doc::add);
        // text holds what no text field has: the keyword values, then the label values, analysed. The
        // free text is inverted once, in its own field; a query on text searches both (EventQueryParser).
        StringBuilder all = keywordText;
        append(all, labelText);
        if (!all.isEmpty()) {
            doc.add(new TextField(IndexFields.TEXT, all.toString(), Field.Store.NO));
        }
        point(doc, IndexFields.TIMESTAMP, timestamp);
        point(doc, IndexFields.RECORDED_AT, recorded);
        point(doc, IndexFields.SEQUENCE, sequence);
        return new Built(doc, hash, EventFields.ACCESS_AGENT.equals(agentId));
    }

    /** Appends every string, number and boolean inside the value the parser is on, in document order. */
    private static void collect(JsonParser p, JsonToken value, StringBuilder out) throws IOException {
        if (value == JsonToken.START_OBJECT || value == JsonToken.START_ARRAY) {
            int depth = 1;
            JsonToken t;
            while (depth > 0 && (t = p.nextToken()) != null) {
                switch (t) {
                    case START_OBJECT, START_ARRAY -> depth++;
                    case END_OBJECT, END_ARRAY -> depth--;
                    case VALUE_STRING, VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT, VALUE_TRUE, VALUE_FALSE -> append(out, p.getText());
                    default -> { }
                }
            }
        } else if (value != JsonToken.VALUE_NULL) {
            append(out, p.getText());
        }
    }

    /** {@code recorded_at} as epoch micros; its fixed form (src/site/events.md#service-assigned-fields) is read without a formatter. */
    static long micros(String recordedAt) {
        if (recordedAt.length() == 27 && recordedAt.charAt(26) == 'Z' && recordedAt.charAt(19) == '.') {
            try {
                long days = LocalDate.of(Integer.parseInt(recordedAt, 0, 4, 10),
                        Integer.parseInt(recordedAt, 5, 7, 10), Integer.parseInt(recordedAt, 8, 10, 10)).toEpochDay();
                long seconds = days * 86_400 + Integer.parseInt(recordedAt, 11, 13, 10) * 3600L
                        + Integer.parseInt(recordedAt, 14, 16, 10) * 60L + Integer.parseInt(recordedAt, 17, 19, 10);
                return seconds * 1_000_000L + Integer.parseInt(recordedAt, 20, 26, 10);
            } catch (RuntimeException e) {
                // not the fixed form after all: the general parser below decides
            }
        }
        return micros(Instant.parse(recordedAt));
    }

    /** The searchable text of a field value: every string, number and boolean inside it, in document order. */
    static String textOf(JsonNode node) {
        if (node == null || node.isNull()) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        collect(node, out);
        return out.toString();
    }

    private static void collect(JsonNode node, StringBuilder out) {
        if (node.isContainerNode()) {
            for (JsonNode child : node) {
                collect(child, out);
            }
        } else if (node.isTextual()) {
            append(out, node.textValue());
        } else if (node.isNumber() || node.isBoolean()) {
            append(out, node.asText());
        }
    }

    private static void append(StringBuilder out, CharSequence text) {
        if (text.isEmpty()) {
            return;
        }
        if (!out.isEmpty()) {
            out.append('\n');
        }
        out.append(text);
    }

    /** Epoch microseconds: the precision of {@code recorded_at}, and wide enough for every four-digit year. */
    static long micros(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1_000);
    }

    private static void keyword(Document doc, String field, String value) {
        doc.add(new StringField(field, value, Field.Store.NO));
    }

    /** The value counted by facets (src/site/console.md): one sorted doc value, beside the exact term of the same field. */
    private static void facetValue(Document doc, String field, String value) {
        doc.add(new SortedDocValuesField(field, new BytesRef(value)));
    }

    private static void point(Document doc, String field, long value) {
        doc.add(new LongPoint(field, value));
        doc.add(new NumericDocValuesField(field, value));
    }
}
