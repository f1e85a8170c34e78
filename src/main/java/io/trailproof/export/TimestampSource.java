package io.trailproof.export;

import io.trailproof.core.timestamp.TimestampRecord;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * Where an export finds the stored timestamps it may embed (src/site/evidence-format.md, src/site/timestamps.md#record). The composition root
 * wires it to the timestamp store, so the export knows the record's shape and nothing else of
 * timestamping.
 */
@FunctionalInterface
public interface TimestampSource {

    /** Visits every stored record, oldest first (the order they were stored in). */
    void forEachOldestFirst(Consumer<TimestampRecord> visitor) throws IOException;

    /** No timestamps at all. */
    TimestampSource NONE = visitor -> {
    };
}
