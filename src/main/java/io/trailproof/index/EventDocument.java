package io.trailproof.index;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.StoredEvent;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Map;

/**
 * How one stored event becomes a Lucene document (CONTRACT 4.3). Nothing is stored for display: the
 * API reads events back from the log by {@code log_index}, which is kept as a doc value.
 */
final class EventDocument {

    private EventDocument() {
    }

    static Document of(StoredEvent event) {
        JsonNode json = event.json();
        Document doc = new Document();
        doc.add(new LongPoint(IndexFields.LOG_INDEX, event.logIndex()));
        doc.add(new NumericDocValuesField(IndexFields.LOG_INDEX, event.logIndex()));
        keyword(doc, IndexFields.ID, event.id());
        keyword(doc, IndexFields.HASH, event.hash());
        StringBuilder all = new StringBuilder();
        for (String[] f : new String[][] {
                {EventFields.AGENT_ID, IndexFields.AGENT_ID}, {EventFields.SESSION_ID, IndexFields.SESSION_ID},
                {EventFields.SOURCE, IndexFields.SOURCE}, {EventFields.CAPTURE_METHOD, IndexFields.CAPTURE_METHOD},
                {EventFields.ACTION_TYPE, IndexFields.ACTION_TYPE},
                {EventFields.ACTION_STATUS, IndexFields.ACTION_STATUS}}) {
            JsonNode v = json.get(f[0]);
            if (v != null && v.isTextual()) {
                keyword(doc, f[1], v.textValue());
                append(all, v.textValue());
            }
        }
        JsonNode labels = json.get(EventFields.LABELS);
        if (labels != null && labels.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = labels.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> label = it.next();
                if (label.getValue().isTextual()) {
                    keyword(doc, IndexFields.LABEL_PREFIX + label.getKey(), label.getValue().textValue());
                    append(all, label.getValue().textValue());
                }
            }
        }
        for (String[] f : new String[][] {
                {EventFields.ACTION_NAME, IndexFields.ACTION_NAME}, {EventFields.ERROR_MESSAGE, IndexFields.ERROR_MESSAGE},
                {EventFields.ACTION_INPUT, IndexFields.INPUT}, {EventFields.ACTION_OUTPUT, IndexFields.OUTPUT},
                {EventFields.METADATA, IndexFields.METADATA}}) {
            String text = textOf(json.get(f[0]));
            if (!text.isEmpty()) {
                doc.add(new TextField(f[1], text, Field.Store.NO));
                append(all, text);
            }
        }
        if (!all.isEmpty()) {
            doc.add(new TextField(IndexFields.TEXT, all.toString(), Field.Store.NO));
        }
        long recorded = micros(Instant.parse(event.recordedAt()));
        long timestamp;
        try {
            timestamp = micros(EventTime.parseTimestamp(event.timestamp()));
        } catch (DateTimeParseException e) {
            timestamp = recorded; // unreachable for accepted events; a tampered one still gets a place in time
        }
        point(doc, IndexFields.TIMESTAMP, timestamp);
        point(doc, IndexFields.RECORDED_AT, recorded);
        point(doc, IndexFields.SEQUENCE, event.sequence());
        JsonNode duration = json.get(EventFields.DURATION_MS);
        if (duration != null && duration.canConvertToLong()) {
            point(doc, IndexFields.DURATION_MS, duration.longValue());
        }
        return doc;
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

    private static void append(StringBuilder out, String text) {
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

    private static void point(Document doc, String field, long value) {
        doc.add(new LongPoint(field, value));
        doc.add(new NumericDocValuesField(field, value));
    }
}
