package io.trailproof.index;

import org.apache.lucene.document.Document;
import org.apache.lucene.index.memory.MemoryIndex;
import org.apache.lucene.search.IndexSearcher;

/**
 * One stored event about to be offered to {@link EventMatcher}s. What matching needs is built
 * lazily and at most once, however many matchers look at it: the event's index document (one parse
 * of its bytes) for filters, and a one-document in-memory index (analysis of its text) for queries.
 * Not thread-safe: one thread offers an event to its matchers.
 */
public final class CandidateEvent {

    private final long logIndex;
    private final byte[] payload;
    private Document document;
    private IndexSearcher searcher;

    public CandidateEvent(long logIndex, byte[] payload) {
        this.logIndex = logIndex;
        this.payload = payload;
    }

    public long logIndex() {
        return logIndex;
    }

    /** The stored bytes, exactly as {@code GET /v1/events/{id}} returns them. */
    public byte[] payload() {
        return payload;
    }

    Document document() {
        if (document == null) {
            document = EventDocument.of(logIndex, payload).document();
        }
        return document;
    }

    IndexSearcher searcher(IndexAnalyzer analyzer) {
        if (searcher == null) {
            MemoryIndex memory = MemoryIndex.fromDocument(document(), analyzer);
            searcher = memory.createSearcher();
        }
        return searcher;
    }
}
