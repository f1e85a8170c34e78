package io.trailproof.index;

import io.trailproof.background.HeldWork;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LogRanges;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The search index of a running service (src/site/http-api.md#conventions, src/site/http-api.md#endpoints, src/site/storage.md). A background thread follows the
 * ledger and adds each durable event, so ingestion never waits for Lucene. A list or search first
 * waits until the index holds every event that was durable when the request started (read after
 * write), then answers from a refreshed searcher; the events themselves are read from the log.
 *
 * <p>On open, a missing index, a damaged one, or one that does not match the log is replaced by a
 * fresh one that the follower fills from the log, logging its progress; nobody needs to act. The
 * checksums of the files found are verified after the start, as work handed to {@code afterStart}:
 * until then {@link #loading()} lists {@value #INDEX_CHECK} and every answer says it came from an
 * index not yet checked ({@link Results#unchecked()}); a file that fails its check has the index
 * replaced in the same way (the follower moves it aside and fills a fresh one).
 * {@link #startRebuild} builds a new index beside the live one while the live one keeps answering,
 * then swaps it in.
 *
 * <p>Following the ledger, and which index is live, are {@link IndexFollower}'s: only its thread
 * writes, swaps or reopens the index. The waiting and reading of {@link #find} and
 * {@link #findAsync} are {@link IndexReads}'; building a new generation is {@link OnlineRebuild}'s.
 */
public final class SearchIndex implements Closeable {

    private static final System.Logger LOG = System.getLogger(SearchIndex.class.getName());

    /** What {@link #loading()} says while the checksums of the index found at the start are being verified. */
    public static final String INDEX_CHECK = "index check";

    /**
     * A result: its log index and, unless only positions were asked, the stored event as read from the
     * log (else null), with score and highlights for searches.
     */
    public record Result(long logIndex, byte[] payload, float score, Map<String, List<String>> highlights) {
    }

    /**
     * A page of results, the total number of matches, and their summary (null when none was asked).
     * {@code behind} is 0 when every event durable at the request's start was searched; otherwise the
     * answer came from what was indexed after the bounded wait ({@link #answeringPartiallyAfter}) and
     * {@code behind} is how many of those events it may not hold (an upper bound). {@code unchecked}
     * is true when the index answered before the checksums of the files it held at the start were
     * verified ({@link #loading()}).
     */
    public record Results(long total, List<Result> results, MatchSummary summary, long behind, boolean unchecked) {
        public Results(long total, List<Result> results, MatchSummary summary) {
            this(total, results, summary, 0, false);
        }
    }

    /**
     * What {@code GET /v1/admin/index} shows. {@code lastFailure} is the last time writing the index
     * failed and what was done about it (null when it never failed since the start).
     */
    public record Status(long indexed, long logSize, String generation, Rebuild rebuild, Failure lastFailure) {
        public boolean upToDate() {
            return indexed >= logSize;
        }
    }

    /** A failed write to the index: when, what failed, and what the service did about it. */
    public record Failure(Instant at, String error, String action) {
    }

    /** The last online rebuild: state {@code running}, {@code done} or {@code failed}. */
    public record Rebuild(String state, Instant startedAt, Instant finishedAt, long done, long total, String error) {
    }

    private final Ledger ledger;
    private final ReentrantReadWriteLock swapLock = new ReentrantReadWriteLock();
    private final IndexReads reads;
    private final OnlineRebuild rebuild;
    private final IndexFollower follower;
    private volatile boolean closed;

    private SearchIndex(Ledger ledger, IndexDirectory dirs, IndexOptions options, Clock clock, EventIndex index,
                        Path generation) {
        this.ledger = ledger;
        this.reads = new IndexReads(ledger, clock, swapLock.readLock(), new IndexReads.Live() {
            @Override
            public EventIndex current() {
                return follower.current();
            }

            @Override
            public Failure lastFailure() {
                return follower.lastFailure();
            }

            @Override
            public void rebuildDamaged() {
                startRebuild();
            }
        });
        this.rebuild = new OnlineRebuild(ledger, dirs, options, clock, () -> closed, reads::progress);
        this.follower = new IndexFollower(ledger, dirs, options, clock, index, generation, swapLock, reads, rebuild,
                () -> closed);
    }

    /**
     * Opens (or replaces) the index in {@code dataDir/index/} and starts following the ledger; the
     * check of the index found begins at once, on a thread of its own.
     */
    public static SearchIndex open(Path dataDir, Ledger ledger, Clock clock) throws IOException {
        return open(dataDir, ledger, clock, 0, HeldWork.none());
    }

    /**
     * As {@link #open(Path, Ledger, Clock)}, with a RAM buffer of {@code ramBufferMb} MB
     * ({@code index.ram-buffer-mb}; 0 sizes it from the heap, see {@link IndexOptions#of}), and both
     * the following of the ledger and the check of the index found handed to {@code afterStart}
     * (which may hold them until the service listens, {@link HeldWork}).
     */
    public static SearchIndex open(Path dataDir, Ledger ledger, Clock clock, int ramBufferMb, Executor afterStart)
            throws IOException {
        IndexOptions options = IndexOptions.of(ramBufferMb);
        LOG.log(System.Logger.Level.INFO, "search index: RAM buffer " + options.ramBufferMb() + " MB (" + (ramBufferMb > 0
                ? "index.ram-buffer-mb" : "1/" + IndexOptions.HEAP_SHARE + " of the " + Runtime.getRuntime().maxMemory()
                / (1024 * 1024) + " MB heap, within " + IndexOptions.MIN_AUTO_MB + ".." + IndexOptions.MAX_AUTO_MB
                + " MB; index.ram-buffer-mb sets it") + ")");
        return open(dataDir, ledger, clock, options, afterStart);
    }

    /** As {@link #open(Path, Ledger, Clock)}, every Lucene index opened as {@code options} say. */
    public static SearchIndex open(Path dataDir, Ledger ledger, Clock clock, IndexOptions options) throws IOException {
        return open(dataDir, ledger, clock, options, HeldWork.none());
    }

    private static SearchIndex open(Path dataDir, Ledger ledger, Clock clock, IndexOptions options, Executor afterStart)
            throws IOException {
        IndexDirectory dirs = new IndexDirectory(dataDir);
        Map.Entry<EventIndex, Path> opened = LiveGeneration.open(dirs, ledger, options);
        SearchIndex index = new SearchIndex(ledger, dirs, options, clock, opened.getKey(), opened.getValue());
        // After a crash the index is behind the log by up to a commit interval of events: indexing
        // them beside the start would take the CPU the start needs. Nothing can search before the
        // service listens, and then a search waits for the index as at any other time.
        afterStart.execute(index.follower::start);
        EventIndex found = opened.getKey();
        if (!found.checked()) {
            afterStart.execute(() -> index.check(found));
        }
        return index;
    }

    /**
     * Verifies the checksums of the index found at the start; one that fails is handed to the
     * follower, which moves it aside and fills a fresh one from the log. Nothing to do when the index
     * was replaced or closed meanwhile (a rebuild, a failed write, a stop).
     */
    private void check(EventIndex found) {
        long t0 = System.nanoTime();
        try {
            found.checkIntegrity();
            LOG.log(System.Logger.Level.INFO, "search index: the checksum of every file verified ("
                    + (System.nanoTime() - t0) / 1_000_000 + " ms)");
        } catch (IOException | RuntimeException e) {
            if (closed || follower.current() != found) {
                return;
            }
            LOG.log(System.Logger.Level.ERROR, "search index: a file failed its check (" + e + ")");
            follower.replaceDamaged(found, e);
        }
    }

    /**
     * What the index is still doing after the start that the answers depend on: {@value #INDEX_CHECK}
     * while the checksums of the index found at the start are being verified (or wait to be), and from
     * a failed check until the damaged index is moved aside and replaced by a fresh one.
     */
    public List<String> loading() {
        return follower.current().checked() && !follower.replacingDamaged() ? List.of() : List.of(INDEX_CHECK);
    }

    // ---------------------------------------------------------------- follower

    /**
     * Stops the follower before its next step until the returned handle is closed: the index then
     * falls behind the log as it does when Lucene stalls (a hung disk, a long merge). A seam for
     * tests of what must not wait for the index; nothing in the service calls it.
     */
    public AutoCloseable holdFollower() {
        return follower.hold();
    }

    /** True while the follower waits at a {@link #holdFollower} hold: it takes no further step until released. */
    public boolean followerHeld() {
        return follower.held();
    }

    /**
     * Replaces the documents of the events at {@code logIndexes} by documents of the events as the
     * log holds them now (erased), merges the old documents away and commits: done by the follower,
     * the index's one writer. The future completes once no file of the index holds the old
     * documents, or exceptionally when that failed (the caller must then not say the content is gone).
     *
     * <p>The events are read and replaced a chunk at a time (at most
     * {@value IndexFollower#PURGE_CHUNK_EVENTS} events or {@value IndexFollower#PURGE_CHUNK_BYTES}
     * bytes of payloads), and merged away once at the end, so a purge's memory does not grow with the
     * number of events it erases.
     *
     * <p>While events are being ingested the merges work {@code shareWhileIngesting} of the time
     * (src/site/erasure.md#pacing), and in their pauses the follower indexes the events that arrived,
     * so searches do not wait for the purge to end; 1 never pauses.
     */
    public CompletableFuture<Void> purge(LogRanges logIndexes, double shareWhileIngesting) {
        return follower.purge(logIndexes, shareWhileIngesting);
    }

    // ---------------------------------------------------------------- reads

    /**
     * One page of events matching the request, read from the log, newest first unless the request says
     * otherwise. Every event that was durable when this call started is considered. Blocks the
     * calling thread while the index catches up (at most {@link IndexReads#CATCH_UP_WAIT}); see
     * {@link #findAsync} for the form that waits without a thread.
     *
     * @throws BadQueryException when the query is malformed or too costly
     * @throws IndexUnavailableException when the index could not catch up in time or is damaged
     */
    public Results find(IndexRequest request) throws BadQueryException, IndexUnavailableException, IOException {
        return reads.find(request, false);
    }

    /**
     * As {@link #find}, for a person's request: after {@link #answeringPartiallyAfter} without the
     * index catching up it answers from what is indexed, and {@link Results#behind()} says how far
     * behind that is. Never for work that must see every event (an erasure's matches).
     *
     * @throws IndexUnavailableException when the index failed (not merely behind), is damaged or closing
     */
    public Results findOrPartial(IndexRequest request) throws BadQueryException, IndexUnavailableException, IOException {
        return reads.find(request, true);
    }

    /**
     * As {@link #findOrPartial}, but no thread waits for the index: the request is parked until the
     * follower has indexed every event that was durable when this call started, then searched on
     * {@code searchThreads}; after {@link #answeringPartiallyAfter}, or at once when
     * {@link IndexReads#MAX_WAITING} requests already wait, it is answered from what is indexed
     * ({@link Results#behind()}). Completes exceptionally with {@link BadQueryException},
     * {@link IndexUnavailableException} (the index failed, is damaged, or the service is closing) or an
     * {@link IOException}.
     */
    public CompletableFuture<Results> findAsync(IndexRequest request, Executor searchThreads) {
        return reads.findAsync(request, searchThreads);
    }

    /**
     * Sets how long {@link #findOrPartial} and {@link #findAsync} wait for the index before they answer
     * from what is indexed ({@code index.catch-up-wait-ms}; {@link IndexReads#PARTIAL_AFTER} until set).
     * Returns this index.
     */
    public SearchIndex answeringPartiallyAfter(Duration wait) {
        reads.partialAfter(wait);
        return this;
    }

    /**
     * Where the writer of the service's own background records (the trail of who looked) tells their
     * log positions, so that no read waits for them ({@link BackgroundRecords}).
     */
    public BackgroundRecords backgroundRecords() {
        return reads.background();
    }

    /** Searches cancelled since the start because their client had gone ({@link IndexRequest#clientGone}). */
    public long searchesCancelled() {
        return reads.cancelled();
    }

    // ---------------------------------------------------------------- administration

    public Status status() {
        return new Status(follower.current().size(), ledger.size(), follower.currentGeneration().getFileName().toString(),
                rebuild.state(), follower.lastFailure());
    }

    /**
     * Starts building a new index from the log in the background; the live index keeps answering
     * until the new one has caught up and is swapped in. Returns the rebuild's status; if one is
     * already running, that one's.
     */
    public Rebuild startRebuild() {
        return rebuild.start();
    }

    /** Stops following, commits what is indexed, and closes. A rebuild in progress is abandoned (and removed at the next start). */
    @Override
    public void close() throws IOException {
        closed = true;
        reads.close();
        reads.progress(); // no interrupt: it would close the log's file channels under a read
        try {
            follower.join(60_000);
            rebuild.awaitStopped(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        rebuild.closePending();
        // A clean stop leaves the index level with the log unless that is a long job (a rebuild in
        // progress) or the index failed (the next start indexes from its last commit).
        follower.closeIndex();
    }
}
