package io.trailproof.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The body of a {@code POST /v1/batch} answer (CONTRACT 4.2): one result per item in request order,
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
    static ByteBuffer[] write(String[] errors, List<byte[]> stored) throws IOException {
        int size = 2;
        int e = 0;
        for (String error : errors) {
            size += 32 + (error == null ? stored.get(e++).length : 256);
        }
        return Responses.write(size, g -> {
            g.writeStartArray();
            int next = 0;
            for (int i = 0; i < errors.length; i++) {
                g.writeStartObject();
                g.writeNumberField("index", i);
                if (errors[i] == null) {
                    g.writeFieldName("event");
                    g.writeRawValue(new RawJson(stored.get(next++)));
                } else {
                    g.writeStringField("error", errors[i]);
                }
                g.writeEndObject();
            }
            g.writeEndArray();
        });
    }
}
