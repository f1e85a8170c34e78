package io.trailproof.index;

import io.trailproof.background.Pacer;
import io.trailproof.core.event.StoredEvent;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.SortedMap;
import java.util.function.LongConsumer;

/**
 * A search index over the log (src/site/search.md#fields and src/site/storage.md): derived, never the source of truth. It holds the
 * events with log indexes {@code [0, size())}, each exactly once, and answers with log indexes; the
 * caller reads the events themselves from the log.
 *
 * <p><b>Atomicity and durability:</b> {@link #add} makes events searchable after
 * {@link #makeSearchable}, but durable only at {@link #commit}. A commit is atomic and records
 * {@link #size()} and the hash of the last event held; after a crash the index holds exactly what
 * its last commit held, and its owner indexes the log beyond it again. A write that fails (in
 * {@link #addPayloads} or {@link #commit}) rolls the index back to its last commit and ends its
 * writing life ({@link IndexWriterFailedException}, {@link #writeFailure()}): whatever a failed
 * write had half done is gone, so re-adding from the last commit never holds an event twice.
 *
 * <p>One thread adds and commits; any number of threads search concurrently.
 */
public interface EventIndex extends Closeable {

    /** Number of log entries held: the next log index to add. */
    long size();

    /** {@code hash} of the event at {@code size() - 1}, or null when empty; checked against the log on open. */
    String lastHash();

    /**
     * Adds events that directly follow what the index holds (the first one's log index is {@link #size()}).
     *
     * @throws IllegalArgumentException when the events do not continue the index
     */
    void add(List<StoredEvent> events) throws IOException;

    /**
     * Adds log entries exactly as the log holds them, the first at log index {@link #size()}. An
     * entry that is not a readable stored event of its index gets a placeholder that holds its place
     * (counts still match) and makes nothing searchable; verification reports such an entry.
     */
    void addPayloads(List<byte[]> payloads) throws IOException;

    /**
     * Replaces the documents of events the index holds by documents of their new payloads (an
     * erasure, src/site/erasure.md#physically-gone), commits, and merges the replaced documents away
     * so that no file of the index keeps a trace of them; commits again. Durable on return.
     * Only for log indexes below {@link #size()}; others are ignored (indexed later from the log).
     * {@code pacer} is called between the segments merged; it may add events meanwhile.
     */
    default void replace(SortedMap<Long, byte[]> payloads, Pacer pacer) throws IOException {
        replaceDocuments(payloads);
        mergeAwayReplaced(pacer);
    }

    /**
     * The first half of {@link #replace}, for an erasure replaced a chunk at a time: replaces the
     * documents of the events at {@code payloads} held by the index, without merging or committing.
     * The old documents stay in the index's files until {@link #mergeAwayReplaced} returns.
     */
    void replaceDocuments(SortedMap<Long, byte[]> payloads) throws IOException;

    /**
     * The second half of {@link #replace}: merges away every document replaced so far, so that no
     * file of the index keeps a trace of them, and commits. Durable on return. {@code pacer} is
     * called between the segments merged; it may add events meanwhile.
     */
    void mergeAwayReplaced(Pacer pacer) throws IOException;

    /** Makes everything added durable, atomically with {@link #size()} and {@link #lastHash()}. */
    void commit() throws IOException;

    /**
     * Why this index takes no more writes, or null while it is healthy. Once non-null it stays so:
     * the index was rolled back to its last commit, {@link #size()} is what that commit holds, and the
     * owner closes it and opens it again. Also set when the backend closed itself after a fatal error
     * outside any call (a background merge that failed).
     */
    IndexWriterFailedException writeFailure();

    /** Returns once searches see at least the first {@code size} log entries (at most {@link #size()}). */
    void makeSearchable(long size) throws IOException;

    /**
     * As {@link #makeSearchable(long)}, for the searches with {@code filter} (null: none) only: an
     * index that keeps the trail of who looked apart from agents' events makes searchable only what
     * such a search reads (src/site/search.md#two-indexes-agents-events-and-the-trail-of-who-looked).
     */
    default void makeSearchable(long size, EventFilter filter) throws IOException {
        makeSearchable(size);
    }

    /** One page of matching log indexes, with the exact number of matches and the summary the request asks. */
    Page find(IndexRequest request) throws BadQueryException, IOException;

    /**
     * What marks the fragments of an event that match {@code query} (parsed once, for every event of
     * a page): by search field, matched terms marked {@code <em>..</em>} and the rest HTML-escaped;
     * empty when nothing matches. A field that cannot be highlighted is left out, never an error.
     */
    Function<StoredEvent, Map<String, List<String>>> highlighter(String query) throws BadQueryException;

    /** Visits the log index of every event held, in no particular order (for checking against the log). */
    void forEachLogIndex(LongConsumer visitor) throws IOException;

    /**
     * Verifies the checksum of every file the index held when opened, reading each whole; returns at
     * once when that was done (an index that is opened checked, or built by this process, has none
     * left). Runs beside writes and searches.
     *
     * @throws IOException when a file fails its checksum or is missing: the index is damaged
     */
    void checkIntegrity() throws IOException;

    /** False while files the index held when opened have not passed {@link #checkIntegrity}. */
    boolean checked();

    /** Number of events held per {@code agent_id}. */
    Map<String, Long> countsPerAgent() throws IOException;

    /** A matching event: its position in the log and its score (NaN when listing without a query). */
    record Hit(long logIndex, float score) {
    }

    /** A page of hits, the total number of matches, and their summary (null when none was asked). */
    record Page(long total, List<Hit> hits, MatchSummary summary) {
        public Page(long total, List<Hit> hits) {
            this(total, hits, null);
        }
    }
}
