package io.trailproof.store;

import java.io.IOException;

/**
 * A read went to a segment whose file an erasure replaced while the read was under way; the reader
 * retries with the log's current segments (src/site/erasure.md#physically-gone). Never leaves the log.
 */
final class SegmentReplacedException extends IOException {
    SegmentReplacedException(Segment segment) {
        super("segment " + segment.path + " was rewritten", null);
        setStackTrace(new StackTraceElement[0]);
    }
}
