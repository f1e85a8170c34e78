package io.trailproof.index;

import io.trailproof.background.Pacer;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.store.AlreadyClosedException;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;

/**
 * {@link EventIndex} in a generation directory holding two Lucene 10 indexes
 * (src/site/search.md#two-indexes-agents-events-and-the-trail-of-who-looked): agents' events in the
 * directory itself, and the trail of who looked (agent {@value EventFields#ACCESS_AGENT}) in its
 * sub-directory {@value #TRAIL_DIR}, so that writing the trail never adds segments to the index that
 * searches of agents' events read. Each commit's user data holds {@code log_size}, {@code last_hash}
 * and the document {@code format}; both indexes are committed at the same {@code log_size}, the
 * trail's first, so a crash between the two leaves the trail's ahead, and what it holds beyond the
 * other's commit is dropped on open and indexed again from the log. An index of another format is
 * refused on open (its owner rebuilds it). Searches run on near-real-time readers
 * ({@link LuceneSearches}); how an erasure's replaced documents leave the files is {@link PurgeMerges}.
 */
public final class LuceneEventIndex implements EventIndex {

    /**
     * Version of {@link EventDocument}'s layout; a change means existing indexes are rebuilt. 2: the
     * free text is no longer copied into {@code text} (an index of format 1 would answer the same
     * queries, but bigger and slower to build; it is rebuilt so that every index has one layout).
     * 3: the facetable keyword fields and labels also hold a sorted doc value (facets, src/site/console.md).
     * 4: the index is sorted by {@link #INDEX_SORT} (an index of format 3 holds the same documents
     * unsorted; Lucene cannot sort an existing index in place, so it is rebuilt).
     * 5: the trail of who looked is in an index of its own, {@value #TRAIL_DIR} (an index of format 4
     * holds its records among agents' events, where every search of an agent would read them).
     */
    static final String FORMAT = "5";

    /** The sub-directory of a generation that holds the trail of who looked's index. */
    static final String TRAIL_DIR = "access";

    /**
     * The trail's writer buffers at most this much before it flushes (less when the index's own
     * buffer is smaller): its records are small and few next to agents' events.
     */
    static final int TRAIL_RAM_BUFFER_MB = 16;

    /**
     * The order of the documents inside every segment: newest {@code log_index} first, the order in
     * which every search breaks ties ({@link RequestQuery#sort}). A search in that order (a listing
     * or a search whose every match scores the same) stops reading a segment once it holds a page's
     * worth of hits, so its cost follows the page and the number of segments, not the number of
     * matches (src/site/search.md#how-the-index-follows-the-log).
     */
    static final Sort INDEX_SORT = new Sort(new SortField(IndexFields.LOG_INDEX, SortField.Type.LONG, true));
    static final String COMMIT_FORMAT = "format";
    static final String COMMIT_LOG_SIZE = "log_size";
    static final String COMMIT_LAST_HASH = "last_hash";

    private static final System.Logger LOG = System.getLogger(LuceneEventIndex.class.getName());

    /** Threads that build and invert documents: the follower itself plus these helpers. */
    private static final int INDEXING_THREADS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    private static final int MIN_SLICE = 250;
    private static final ExecutorService INDEXERS = Executors.newFixedThreadPool(
            Math.max(1, INDEXING_THREADS - 1), r -> {
                Thread t = new Thread(r, "trailproof-indexer");
                t.setDaemon(true);
                return t;
            });

    /** Agents' events (and placeholders of unreadable log entries). */
    private final IndexPart agents;
    /** The trail of who looked. */
    private final IndexPart trail;
    private final List<IndexPart> parts;
    private final LuceneSearches reads;
    private volatile long size;
    private volatile String lastHash;
    /** What the searchers of agents' events were last refreshed at (log entries). */
    private volatile long searchable;
    /** What the searchers of the trail were last refreshed at: apart, as searches of an agent never read it. */
    private volatile long trailSearchable;
    /** What the last successful commit holds (also what the index held when opened). */
    private volatile long committedSize;
    private volatile String committedHash;
    /** The files held when opened, whose checksums {@link #checkIntegrity} has yet to verify. */
    private final PendingCheck pending;
    /** Set once a write failed; guarded by this for writes. */
    private volatile IndexWriterFailedException failure;

    private LuceneEventIndex(IndexPart agents, IndexPart trail, IndexAnalyzer analyzer, long size, String lastHash,
                             PendingCheck pending) {
        this.agents = agents;
        this.pending = pending;
        this.trail = trail;
        this.parts = List.of(agents, trail);
        this.size = size;
        this.lastHash = lastHash;
        this.committedSize = size;
        this.committedHash = lastHash;
        this.searchable = size;
        this.trailSearchable = size;
        this.reads = new LuceneSearches(agents, trail, analyzer);
    }

    /** An intact index written with another layout of {@link EventDocument} (another version of the service). */
    public static final class OtherFormatException extends IOException {
        OtherFormatException(String message) {
            super(message);
        }
    }

    /**
     * Opens the index in {@code path}, creating an empty one when there is none, and verifies the
     * checksum of every file it holds.
     *
     * @throws OtherFormatException when the index has another layout: the caller builds a new one
     * @throws IOException when the index is damaged (a CorruptIndexException, a missing file, the
     *     trail's index committed behind the other...): the caller moves it aside and rebuilds
     */
    public static LuceneEventIndex open(Path path) throws IOException {
        return open(path, IndexOptions.of(0));
    }

    /** As {@link #open(Path)}, with the writers' RAM buffers and directories as {@code options} say. */
    public static LuceneEventIndex open(Path path, IndexOptions options) throws IOException {
        LuceneEventIndex index = openUnchecked(path, options);
        try {
            index.checkIntegrity();
        } catch (IOException | RuntimeException e) {
            try {
                index.close();
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e instanceof IOException io ? io : new IOException(e.toString(), e);
        }
        return index;
    }

    /**
     * As {@link #open(Path, IndexOptions)}, but the checksums are left to {@link #checkIntegrity}: what
     * the open reads is bounded by the number of files (each one's header and footer, the commit, the
     * documents' count), not by their size. Until the check has passed, the index may be damaged in
     * ways only reading a file whole finds ({@link #checked()} is false).
     */
    public static LuceneEventIndex openUnchecked(Path path, IndexOptions options) throws IOException {
        IndexAnalyzer analyzer = new IndexAnalyzer();
        IndexPart agents = IndexPart.open(path, options, options.ramBufferMb(), analyzer);
        IndexPart trail = null;
        List<DirectoryReader> views = new ArrayList<>();
        try {
            trail = IndexPart.open(path.resolve(TRAIL_DIR), options,
                    Math.min(options.ramBufferMb(), TRAIL_RAM_BUFFER_MB), analyzer);
            long size = 0;
            String lastHash = null;
            if (!agents.opened.isEmpty() || agents.held) {
                size = Long.parseLong(agents.opened.get(COMMIT_LOG_SIZE));
                lastHash = agents.opened.get(COMMIT_LAST_HASH);
            }
            long trailSize = trail.opened.isEmpty() && !trail.held ? 0 : Long.parseLong(trail.opened.get(COMMIT_LOG_SIZE));
            if (trailSize < size) {
                throw new IOException("the trail of who looked's index was committed at " + trailSize
                        + " log entries, agents' events' at " + size);
            }
            if (trailSize > size) {
                // Stopped between the two commits (the trail's comes first): the log beyond is indexed again.
                trail.writer.deleteDocuments(LongPoint.newRangeQuery(IndexFields.LOG_INDEX, size, Long.MAX_VALUE));
            }
            views.add(agents.openedView());
            views.add(trail.openedView());
            long docs = 0;
            for (DirectoryReader view : views) {
                docs += view.numDocs();
            }
            if (docs != size) {
                throw new IOException("index holds " + docs + " documents but its commit says " + size + " log entries");
            }
            return new LuceneEventIndex(agents, trail, analyzer, size, lastHash, new PendingCheck(views));
        } catch (IOException | RuntimeException e) {
            for (DirectoryReader view : views) {
                try {
                    view.close();
                } catch (IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            for (IndexPart part : trail == null ? List.of(agents) : List.of(agents, trail)) {
                try {
                    part.close();
                } catch (IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e instanceof IOException io ? io : new IOException(e.toString(), e);
        }
    }

    /**
     * Verifies the checksum of every file the index held when it was opened, reading each whole (the
     * files stay on disk until this is done, whatever merges meanwhile); at once when it was done
     * before. Safe beside writes and searches. Files written since the open are this process's own, and
     * a merge verifies the checksums of the segments it reads.
     *
     * @throws IOException when a file fails its checksum (a CorruptIndexException) or is missing
     */
    @Override
    public void checkIntegrity() throws IOException {
        pending.run();
    }

    @Override
    public boolean checked() {
        return pending.done();
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public String lastHash() {
        return lastHash;
    }

    @Override
    public void add(List<StoredEvent> events) throws IOException {
        long next = size;
        for (StoredEvent e : events) {
            if (e.logIndex() != next) {
                throw new IllegalArgumentException("event at log index " + e.logIndex() + " does not follow the index, which "
                        + "holds " + next + " entries");
            }
            next++;
        }
        addPayloads(events.stream().map(StoredEvent::payload).toList());
    }

    /**
     * Builds and adds the documents in slices on several threads: IndexWriter inverts and flushes
     * each thread's documents separately, so indexing uses every core. The order documents arrive in
     * does not matter (each segment is sorted by log_index when written), and {@link #size()} moves only once
     * every slice is in. If any slice fails, every slice is waited for and the writer is rolled back
     * to the last commit: a slice that did get in is gone again, so indexing again from
     * {@link #size()} never adds an entry twice.
     */
    @Override
    public void addPayloads(List<byte[]> payloads) throws IOException {
        requireWritable();
        if (payloads.isEmpty()) {
            return;
        }
        long first = size;
        int slices = payloads.size() < 2 * MIN_SLICE ? 1 : Math.min(INDEXING_THREADS, payloads.size() / MIN_SLICE);
        int per = (payloads.size() + slices - 1) / slices;
        String[] hashes = new String[slices];
        List<Future<?>> pending = new ArrayList<>();
        Throwable failed = null;
        try {
            for (int i = per, k = 1; i < payloads.size(); i += per, k++) {
                int from = i;
                int slice = k;
                pending.add(INDEXERS.submit(() -> {
                    hashes[slice] = addSlice(first + from, payloads.subList(from, Math.min(payloads.size(), from + per)));
                    return null;
                }));
            }
            hashes[0] = addSlice(first, payloads.subList(0, Math.min(per, payloads.size())));
        } catch (IOException | RuntimeException | Error e) {
            failed = e;
        }
        for (Future<?> f : pending) {
            Throwable t = outcome(f);
            if (t != null && failed == null) {
                failed = t;
            } else if (t != null) {
                failed.addSuppressed(t);
            }
        }
        synchronized (this) {
            if (failed != null) {
                throw writeFailed("adding log entries " + first + " to " + (first + payloads.size() - 1), failed);
            }
            if (failure != null) {
                // The writer failed elsewhere (a refresh, a merge) while these were added: they went with it.
                throw failure;
            }
            lastHash = hashes[pending.size()];
            size = first + payloads.size();
        }
    }

    /** Waits for a slice without giving up on an interrupt (the writer must not be rolled back under it); returns its failure. */
    private static Throwable outcome(Future<?> f) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    f.get();
                    return null;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    return e.getCause();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Adds one slice; returns the stored hash of its last entry (null when that one is unreadable). */
    private String addSlice(long firstLogIndex, List<byte[]> slice) throws IOException {
        List<EventDocument.Built> docs = new ArrayList<>(slice.size());
        String last = null;
        for (int i = 0; i < slice.size(); i++) {
            EventDocument.Built built = EventDocument.of(firstLogIndex + i, slice.get(i));
            if (built.hash() == null) {
                LOG.log(System.Logger.Level.WARNING, "log index " + (firstLogIndex + i) + " is not a readable stored "
                        + "event; the index holds its place but nothing about it is searchable (GET /v1/verify reports it)");
            }
            docs.add(built);
            last = built.hash();
        }
        addEach(docs);
        return last;
    }

    /**
     * Adds the documents one at a time, each to the index its agent belongs in: Lucene refuses a
     * block of several documents in a sorted index (a block is kept together, which a sort cannot
     * promise). A failure part way is handled as any failed write: the writers are rolled back to
     * their last commit.
     */
    private void addEach(List<EventDocument.Built> docs) throws IOException {
        for (EventDocument.Built doc : docs) {
            (doc.trail() ? trail : agents).writer.addDocument(doc.document());
        }
    }

    /** Documents replaced since the last {@link #mergeAwayReplaced}: for its log line. */
    private long replacedSinceMerge;

    @Override
    public synchronized void replaceDocuments(SortedMap<Long, byte[]> payloads) throws IOException {
        requireWritable();
        SortedMap<Long, byte[]> held = payloads.headMap(size);
        if (held.isEmpty()) {
            return;
        }
        long[] indexes = held.keySet().stream().mapToLong(Long::longValue).toArray();
        List<EventDocument.Built> docs = new ArrayList<>(indexes.length);
        for (Map.Entry<Long, byte[]> e : held.entrySet()) {
            docs.add(EventDocument.of(e.getKey(), e.getValue()));
        }
        try {
            for (IndexPart part : parts) {
                part.writer.deleteDocuments(LongPoint.newSetQuery(IndexFields.LOG_INDEX, indexes));
            }
            addEach(docs);
        } catch (IOException | RuntimeException | Error e) {
            throw writeFailed("replacing " + indexes.length + " erased events", e);
        }
        replacedSinceMerge += indexes.length;
    }

    @Override
    public synchronized void mergeAwayReplaced(Pacer pacer) throws IOException {
        requireWritable();
        if (replacedSinceMerge == 0) {
            return;
        }
        long replaced = replacedSinceMerge;
        int segments = 0;
        long bytes = 0;
        int waits = 0;
        long t1 = System.nanoTime();
        try {
            for (IndexPart part : parts) {
                PurgeMerges.Purged purged = ((PurgeMerges) part.writer.getConfig().getMergePolicy()).mergeAway(
                        part.writer, (ConcurrentMergeScheduler) part.writer.getConfig().getMergeScheduler(), pacer);
                segments += purged.segments();
                bytes += purged.bytes();
                waits += purged.waits();
            }
        } catch (IOException | RuntimeException | Error e) {
            throw writeFailed("merging away " + replaced + " erased events", e);
        }
        long t2 = System.nanoTime();
        commit();
        replacedSinceMerge = 0;
        for (IndexPart part : parts) {
            part.searchers.maybeRefreshBlocking();
        }
        LOG.log(System.Logger.Level.INFO, String.format(Locale.ROOT, "search index: %d erased events' documents "
                        + "replaced; %d segments holding the old ones (%.1f MB) rewritten in %d ms (%d waits for running merges); "
                        + "committed in %d ms", replaced, segments,
                bytes / 1e6, (t2 - t1) / 1_000_000, waits, (System.nanoTime() - t2) / 1_000_000));
    }

    @Override
    public synchronized void commit() throws IOException {
        requireWritable();
        Map<String, String> data = new TreeMap<>();
        data.put(COMMIT_FORMAT, FORMAT);
        data.put(COMMIT_LOG_SIZE, Long.toString(size));
        if (lastHash != null) {
            data.put(COMMIT_LAST_HASH, lastHash);
        }
        try {
            // The trail's first: a crash before the other's leaves the trail ahead, which open() cuts back.
            trail.commit(data);
            agents.commit(data);
        } catch (IOException | RuntimeException | Error e) {
            // Lucene may keep the writer open after a failed commit, but what it then holds is not
            // certain: start again from the last commit that did succeed.
            throw writeFailed("committing " + size + " log entries", e);
        }
        committedSize = size;
        committedHash = lastHash;
    }

    /** Never blocks while the index is healthy (it is asked on I/O threads). */
    @Override
    public IndexWriterFailedException writeFailure() {
        IndexWriterFailedException f = failure;
        if (f == null) {
            Throwable tragic = tragic();
            if (tragic != null) {
                f = writeFailed("the index writer", tragic);
            }
        }
        return f;
    }

    /** The exception that closed either writer, or null. */
    private Throwable tragic() {
        Throwable t = agents.writer.getTragicException();
        return t != null ? t : trail.writer.getTragicException();
    }

    private void requireWritable() throws IndexWriterFailedException {
        IndexWriterFailedException f = writeFailure();
        if (f != null) {
            throw new IndexWriterFailedException("the index takes no more writes: " + f.getMessage(), f.committedSize(), f);
        }
    }

    /**
     * Ends this index's writing life after a failed write: rolls the writer back to the last commit
     * (dropping every document added since, whichever thread added it) and records why. The first
     * failure is kept; later ones add nothing.
     */
    private synchronized IndexWriterFailedException writeFailed(String what, Throwable cause) {
        if (failure != null) {
            return failure;
        }
        Throwable tragic = tragic();
        if (tragic != null && tragic != cause && cause instanceof AlreadyClosedException) {
            cause = tragic; // another thread hit the real failure; this one only found the writer closed
        }
        IndexWriterFailedException f = new IndexWriterFailedException(what + " failed (" + cause
                + "); rolled back to the last commit (" + committedSize + " log entries)", committedSize, cause);
        for (IndexPart part : parts) {
            try {
                part.rollback();
            } catch (IOException | RuntimeException | Error e) {
                f.addSuppressed(e);
            }
        }
        size = committedSize;
        lastHash = committedHash;
        failure = f;
        return f;
    }

    @Override
    public void makeSearchable(long target) throws IOException {
        makeSearchable(target, null);
    }

    /**
     * Refreshes the searchers of the indexes a search with {@code filter} reads
     * ({@link LuceneSearches}), each only when it is behind {@code target}: recording reads adds to
     * the trail's index alone, and a search of an agent never refreshes (flushes) it.
     */
    @Override
    public void makeSearchable(long target, EventFilter filter) throws IOException {
        boolean agentsBehind = EventFilter.mayMatchAgents(filter) && searchable < target;
        boolean trailBehind = EventFilter.mayMatchTrail(filter) && trailSearchable < target;
        if (!agentsBehind && !trailBehind) {
            return;
        }
        requireWritable();
        long covered = size;
        try {
            // A part nothing was added to since its last refresh is not reopened (Lucene sees it is current).
            if (agentsBehind) {
                agents.searchers.maybeRefreshBlocking();
            }
            if (trailBehind) {
                trail.searchers.maybeRefreshBlocking();
            }
        } catch (IOException | RuntimeException e) {
            // A refresh flushes; a failed flush is fatal to the writer (Lucene closes it).
            if (tragic() != null || !agents.writer.isOpen() || !trail.writer.isOpen()) {
                throw writeFailed("making log entries up to " + covered + " searchable", e);
            }
            throw e;
        }
        synchronized (this) {
            if (agentsBehind) {
                searchable = Math.max(searchable, covered);
            }
            if (trailBehind) {
                trailSearchable = Math.max(trailSearchable, covered);
            }
        }
    }

    @Override
    public Page find(IndexRequest request) throws BadQueryException, IOException {
        return reads.find(request, Paging.STEP);
    }

    /** As {@link #find(IndexRequest)}, stepping over hits before the page {@code pageStep} at a time. */
    Page find(IndexRequest request, int pageStep) throws BadQueryException, IOException {
        return reads.find(request, pageStep);
    }

    /** The query in classic syntax; a syntax error names where it is. */
    Query parse(String text) throws BadQueryException {
        return reads.parse(text);
    }

    @Override
    public Function<StoredEvent, Map<String, List<String>>> highlighter(String query) throws BadQueryException {
        return reads.highlighter(query);
    }

    @Override
    public void forEachLogIndex(LongConsumer visitor) throws IOException {
        reads.forEachLogIndex(visitor);
    }

    @Override
    public Map<String, Long> countsPerAgent() throws IOException {
        return reads.countsPerAgent();
    }

    /** Closes without committing: what was added since the last {@link #commit} is indexed again from the log. */
    @Override
    public void close() throws IOException {
        try {
            pending.close();
        } finally {
            try {
                trail.close();
            } finally {
                agents.close();
            }
        }
    }
}
