package io.trailproof.http;

import com.fasterxml.jackson.core.JsonGenerator;
import io.trailproof.store.EventLog;

import java.io.IOException;
import java.util.List;

/**
 * The body of a {@code POST /v1/batch} answer (src/site/http-api.md#endpoints): one result per item in request order,
 * {@code {"index": i, "event": <stored bytes>}} or {@code {"index": i, "error": "..."}}. The one
 * writer of that body, used for a fresh answer and for an idempotent replay alike, so that a replay
 * is byte for byte the answer first sent.
 */
final class BatchAnswer {

    private BatchAnswer() {
    }

    /**
     * @param errors per item: its error, or null for a stored item
     * @param stored the stored events' bytes, in item order, one per item whose error is null
     */
    static Responses.Written write(String[] errors, List<byte[]> stored) throws IOException {
        int size = 2;
        int e = 0;
        for (String error : errors) {
            size += 32 + (error == null ? stored.get(e++).length : 256);
        }
        return write(errors, size, visitor -> {
            for (int i = 0; i < stored.size(); i++) {
                byte[] event = stored.get(i);
                visitor.accept(i, event, 0, event.length);
            }
        });
    }

    /**
     * The stored items of an answer, handed in item order (each a view valid during the call, as
     * {@link io.trailproof.ledger.Ledger#scanViews} hands them): the events are written into the
     * answer as they are read, never held as an array each.
     */
    @FunctionalInterface
    interface StoredItems {
        void forEach(EventLog.PayloadViewVisitor visitor) throws IOException;
    }

    /**
     * As {@link #write(String[], List)}, the stored events handed by {@code stored}.
     *
     * @param expectedBytes the answer's expected size (for its first buffer)
     */
    static Responses.Written write(String[] errors, int expectedBytes, StoredItems stored) throws IOException {
        return Responses.write(expectedBytes, g -> {
            g.writeStartArray();
            int[] next = {0};
            stored.forEach((index, buf, offset, length) -> {
                next[0] = errorsUpToStored(g, errors, next[0]);
                if (next[0] == errors.length) {
                    throw new IOException("more stored items were read back than an answer names");
                }
                g.writeStartObject();
                g.writeNumberField("index", next[0]++);
                g.writeFieldName("event");
                g.writeRawValue(new RawJson(buf, offset, length));
                g.writeEndObject();
            });
            if (errorsUpToStored(g, errors, next[0]) != errors.length) {
                throw new IOException("an answer names more stored items than were read back");
            }
            g.writeEndArray();
        });
    }

    /** Writes the refused items from {@code i} on, up to the next stored one; returns its item index. */
    private static int errorsUpToStored(JsonGenerator g, String[] errors, int i) throws IOException {
        while (i < errors.length && errors[i] != null) {
            g.writeStartObject();
            g.writeNumberField("index", i);
            g.writeStringField("error", errors[i]);
            g.writeEndObject();
            i++;
        }
        return i;
    }
}
