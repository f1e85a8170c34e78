package io.trailproof.index;

import io.trailproof.background.Pacer;
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
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The search index of a running service (src/site/http-api.md#conventions, src/site/http-api.md#endpoints, src/site/storage.md). A background thread follows the
 * ledger and adds each durable event, so ingestion never waits for Lucene. A list or search first
 * waits until the index holds every event that was durable when the request started (read after
 * write), then answers from a refreshed searcher; the events themselves are read from the log.
 *
 * <p>On open, a missing index, a damaged one, or one that does not match the log is replaced by a
 * fresh one that the follower fills from the log, logging its progress; nobody needs to act.
 * {@link #startRebuild} builds a new index beside the live one while the live one keeps answering,
 * then swaps it in.
 *
 * <p>This class keeps the index level with the ledger and owns which index is live: only its
 * follower thread swaps or reopens it. The waiting and reading of {@link #find} and
 * {@link #findAsync} are {@link IndexReads}'; building a new generation is {@link OnlineRebuild}'s.
 */
public final class SearchIndex implements Closeable {

    private static final System.Logger LOG = System.getLogger(SearchIndex.class.getName());

    /** The follower commits (makes the index durable) at most this often while events arrive. */
    static final Duration COMMIT_INTERVAL = Duration.ofSeconds(5);
    /** During a large catch-up (a rebuild at start) commits are rarer: each one flushes and merges segments. */
    static final Duration CATCH_UP_COMMIT_INTERVAL = Duration.ofSeconds(60);
    /**
     * How often an idle follower looks at the ledger's size when nobody nudges it, and the longest a
     * blocked reader sleeps between looks at the index.
     */
    static final long POLL_MILLIS = 20;
    static final long PROGRESS_LOG_NANOS = 5_000_000_000L;
    private static final long LARGE_CATCH_UP = 10_000;
    /** Reopening after a failed write happens at most this often (a disk that keeps failing). */
    private static final long REOPEN_BACKOFF_NANOS = 1_000_000_000L;
    /** At a clean stop, at most this many events are indexed before the final commit; the rest wait for the next start. */
    static final long CLOSE_CATCH_UP_LIMIT = 100_000;

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
     * {@code behind} is how many of those events it may not hold (an upper bound).
     */
    public record Results(long total, List<Result> results, MatchSummary summary, long behind) {
        public Results(long total, List<Result> results, MatchSummary summary) {
            this(total, results, summary, 0);
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
    private final IndexDirectory dirs;
    private final IndexOptions options;
    private final Clock clock;
    private final ReentrantReadWriteLock swapLock = new ReentrantReadWriteLock();
    private final IndexReads reads;
    private final OnlineRebuild rebuild;
    private final Thread follower;

    private volatile EventIndex current;
    private volatile Path currentGeneration;
    private volatile boolean closed;
    private volatile Failure lastFailure;
    private long committedSize;
    private long lastCommitNanos = System.nanoTime();
    private long lastReopenNanos = System.nanoTime() - REOPEN_BACKOFF_NANOS; // follower only
    /** Set by {@link #holdFollower}: the follower waits before its next step. */
    private volatile CountDownLatch hold;
    /** Set while the follower waits at {@link #hold}. */
    private volatile boolean holding;

    private SearchIndex(Ledger ledger, IndexDirectory dirs, IndexOptions options, Clock clock, EventIndex index,
                        Path generation) {
        this.ledger = ledger;
        this.dirs = dirs;
        this.options = options;
        this.clock = clock;
        this.current = index;
        this.currentGeneration = generation;
        this.committedSize = index.size();
        this.reads = new IndexReads(ledger, clock, swapLock.readLock(), new IndexReads.Live() {
            @Override
            public EventIndex current() {
                return current;
            }

            @Override
            public Failure lastFailure() {
                return lastFailure;
            }

            @Override
            public void rebuildDamaged() {
                startRebuild();
            }
        });
        this.rebuild = new OnlineRebuild(ledger, dirs, options, clock, () -> closed, reads::progress);
        this.follower = new Thread(this::follow, "trailproof-index");
        this.follower.setDaemon(true);
    }

    /** Opens (or replaces) the index in {@code dataDir/index/} and starts following the ledger. */
    public static SearchIndex open(Path dataDir, Ledger ledger, Clock clock) throws IOException {
        return open(dataDir, ledger, clock, 0);
    }

    /**
     * As {@link #open(Path, Ledger, Clock)}, with a RAM buffer of {@code ramBufferMb} MB
     * ({@code index.ram-buffer-mb}; 0 sizes it from the heap, see {@link IndexOptions#of}).
     */
    public static SearchIndex open(Path dataDir, Ledger ledger, Clock clock, int ramBufferMb) throws IOException {
        IndexOptions options = IndexOptions.of(ramBufferMb);
        LOG.log(System.Logger.Level.INFO, "search index: RAM buffer " + options.ramBufferMb() + " MB (" + (ramBufferMb > 0
                ? "index.ram-buffer-mb" : "1/" + IndexOptions.HEAP_SHARE + " of the " + Runtime.getRuntime().maxMemory()
                / (1024 * 1024) + " MB heap, within " + IndexOptions.MIN_AUTO_MB + ".." + IndexOptions.MAX_AUTO_MB
                + " MB; index.ram-buffer-mb sets it") + ")");
        return open(dataDir, ledger, clock, options);
    }

    /** As {@link #open(Path, Ledger, Clock)}, every Lucene index opened as {@code options} say. */
    public static SearchIndex open(Path dataDir, Ledger ledger, Clock clock, IndexOptions options) throws IOException {
        IndexDirectory dirs = new IndexDirectory(dataDir);
        Map.Entry<EventIndex, Path> opened = LiveGeneration.open(dirs, ledger, options);
        SearchIndex index = new SearchIndex(ledger, dirs, options, clock, opened.getKey(), opened.getValue());
        index.follower.start();
        return index;
    }

    // ---------------------------------------------------------------- follower

    private void follow() {
        long catchUpStart = 0;
        long catchUpFrom = 0;
        long lastProgressLog = 0;
        while (!closed) {
            try {
                awaitHold();
                OnlineRebuild.Handoff h = rebuild.handoff();
                if (h != null) {
                    swapIn(h);
                    continue;
                }
                EventIndex index = current;
                IndexWriterFailedException broken = index.writeFailure();
                if (broken != null) {
                    reopen(index, broken);
                    continue;
                }
                if (purgeQueued()) {
                    purge(index);
                    continue;
                }
                long target = ledger.size();
                if (index.size() < target) {
                    long lag = target - index.size();
                    if (catchUpStart == 0 && lag >= LARGE_CATCH_UP) {
                        catchUpStart = System.nanoTime();
                        catchUpFrom = index.size();
                        lastProgressLog = catchUpStart;
                        LOG.log(System.Logger.Level.INFO, "search index: indexing " + lag + " events from the log");
                    }
                    LogReader.copy(ledger, index, Math.min(target, index.size() + LogReader.BATCH), n -> { }, () -> closed);
                    reads.progress();
                    long now = System.nanoTime();
                    if (catchUpStart != 0 && now - lastProgressLog >= PROGRESS_LOG_NANOS) {
                        lastProgressLog = now;
                        LOG.log(System.Logger.Level.INFO, "search index: " + progressLine(index.size() - catchUpFrom,
                                target - catchUpFrom, now - catchUpStart));
                    }
                    Duration interval = catchUpStart != 0 ? CATCH_UP_COMMIT_INTERVAL : COMMIT_INTERVAL;
                    if (now - lastCommitNanos >= interval.toNanos()) {
                        commit(index);
                    }
                } else {
                    if (catchUpStart != 0) {
                        LOG.log(System.Logger.Level.INFO, "search index caught up with the log: " + index.size()
                                + " events (" + Duration.ofNanos(System.nanoTime() - catchUpStart).toSeconds() + " s)");
                        catchUpStart = 0;
                        commit(index);
                    } else if (index.size() > committedSize && System.nanoTime() - lastCommitNanos >= COMMIT_INTERVAL.toNanos()) {
                        commit(index);
                    }
                    reads.awaitNudge(POLL_MILLIS);
                }
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
            } catch (Exception | Error e) {
                if (current.writeFailure() != null) {
                    continue; // reopened at the top of the loop, and logged there
                }
                LOG.log(System.Logger.Level.ERROR, "search index: indexing failed; retrying in a second", e);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /**
     * After a failed write: the failed index (already rolled back to its last commit) is closed and
     * the same generation opened again; the follower then indexes the log beyond that commit anew.
     * A generation that cannot be opened any more is moved aside and replaced by an empty one that
     * the follower fills from the log. Logged, and shown by {@link #status()} and in the 503 of a
     * request that waited for the index meanwhile.
     */
    private void reopen(EventIndex failed, IndexWriterFailedException cause) throws IOException, InterruptedException {
        // A disk that keeps failing would otherwise have the index reopened and failing in a tight loop.
        long sinceLast = System.nanoTime() - lastReopenNanos;
        if (sinceLast < REOPEN_BACKOFF_NANOS) {
            Thread.sleep((REOPEN_BACKOFF_NANOS - sinceLast) / 1_000_000 + 1);
        }
        lastReopenNanos = System.nanoTime();
        String action;
        long held;
        swapLock.writeLock().lock();
        try {
            if (current != failed) {
                return;
            }
            Path generation = currentGeneration;
            try {
                failed.close();
            } catch (IOException | RuntimeException e) {
                cause.addSuppressed(e);
            }
            LuceneEventIndex reopened;
            try {
                reopened = LuceneEventIndex.open(generation, options);
                action = "rolled the index back to its last commit (" + reopened.size() + " events) and reopened it; "
                        + "indexing the rest of the log again";
            } catch (IOException e) {
                Path aside = dirs.moveAside(generation);
                Map.Entry<LuceneEventIndex, Path> fresh = LiveGeneration.fresh(dirs, options);
                reopened = fresh.getKey();
                currentGeneration = fresh.getValue();
                action = "could not reopen the index (" + e.getMessage() + "); moved it to " + aside
                        + " and rebuilding it from the log";
            }
            current = reopened;
            committedSize = reopened.size();
            held = reopened.size();
            lastFailure = new Failure(clock.instant(), String.valueOf(cause.getMessage()), action);
        } finally {
            swapLock.writeLock().unlock();
        }
        LOG.log(System.Logger.Level.ERROR, "search index: writing failed; " + action + " (" + held + " of "
                + ledger.size() + " events held)", cause);
        reads.progress();
    }

    /**
     * Stops the follower before its next step until the returned handle is closed: the index then
     * falls behind the log as it does when Lucene stalls (a hung disk, a long merge). A seam for
     * tests of what must not wait for the index; nothing in the service calls it.
     */
    public AutoCloseable holdFollower() {
        CountDownLatch latch = new CountDownLatch(1);
        hold = latch;
        return () -> {
            hold = null;
            latch.countDown();
        };
    }

    private void awaitHold() throws InterruptedException {
        CountDownLatch latch = hold;
        while (latch != null && !closed && !latch.await(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
            holding = true;
            latch = hold;
        }
        holding = false;
    }

    /** True while the follower waits at a {@link #holdFollower} hold: it takes no further step until released. */
    public boolean followerHeld() {
        return holding;
    }

    // ---------------------------------------------------------------- erasure (src/site/erasure.md)

    /** Erasures waiting for the follower: the log indexes whose documents are to be replaced. */
    private final ConcurrentLinkedQueue<Purge> purges = new ConcurrentLinkedQueue<>();

    private record Purge(LogRanges logIndexes, double shareWhileIngesting, CompletableFuture<Void> done) {
    }

    /** Most events whose new documents one step of a purge holds in memory (src/site/erasure.md#memory). */
    static final int PURGE_CHUNK_EVENTS = 4096;
    /** Most payload bytes one step of a purge holds in memory. */
    static final long PURGE_CHUNK_BYTES = 16L << 20;

    private boolean purgeQueued() {
        return !purges.isEmpty();
    }

    /**
     * Replaces the documents of the events at {@code logIndexes} by documents of the events as the
     * log holds them now (erased), merges the old documents away and commits: done by the follower,
     * the index's one writer. The future completes once no file of the index holds the old
     * documents, or exceptionally when that failed (the caller must then not say the content is gone).
     *
     * <p>The events are read and replaced a chunk at a time (at most {@value #PURGE_CHUNK_EVENTS}
     * events or {@value #PURGE_CHUNK_BYTES} bytes of payloads), and merged away once at the end, so a
     * purge's memory does not grow with the number of events it erases.
     *
     * <p>While events are being ingested the merges work {@code shareWhileIngesting} of the time
     * (src/site/erasure.md#pacing), and in their pauses the follower indexes the events that arrived,
     * so searches do not wait for the purge to end; 1 never pauses.
     */
    public CompletableFuture<Void> purge(LogRanges logIndexes, double shareWhileIngesting) {
        Purge p = new Purge(logIndexes, shareWhileIngesting, new CompletableFuture<>());
        purges.add(p);
        reads.nudgeFollower();
        return p.done();
    }

    private void purge(EventIndex index) {
        Purge p;
        while ((p = purges.poll()) != null) {
            try {
                long size = ledger.size();
                TreeMap<Long, byte[]> payloads = new TreeMap<>();
                long[] bytes = {0};
                p.logIndexes().forEachChunk(PURGE_CHUNK_EVENTS, (chunk, n) -> {
                    for (int k = 0; k < n && chunk[k] < size; k++) {
                        byte[] payload = ledger.payloadAt(chunk[k]);
                        payloads.put(chunk[k], payload);
                        bytes[0] += payload.length;
                        if (payloads.size() >= PURGE_CHUNK_EVENTS || bytes[0] >= PURGE_CHUNK_BYTES) {
                            replaceChunk(index, payloads);
                            bytes[0] = 0;
                        }
                    }
                });
                replaceChunk(index, payloads);
                index.mergeAwayReplaced(Pacer.whileBusy(p.shareWhileIngesting(), ledger::size, System::nanoTime,
                        nanos -> indexDuring(index, nanos)));
                dirs.deleteDamaged();      // and a damaged index set aside goes
                committedSize = index.size();
                lastCommitNanos = System.nanoTime();
                p.done().complete(null);
            } catch (Exception | Error e) {
                p.done().completeExceptionally(e);
            }
        }
    }

    /** One step of a purge: the documents of {@code payloads} replaced (only those the index holds), then forgotten. */
    private void replaceChunk(EventIndex index, TreeMap<Long, byte[]> payloads) throws IOException {
        if (payloads.isEmpty()) {
            return;
        }
        index.replaceDocuments(payloads);
        rebuild.purge(payloads);   // and in an index being rebuilt, which must not bring them back
        payloads.clear();
    }

    /**
     * A pause of a paced purge: indexes the events that arrived, for at most {@code nanos} (give or
     * take a batch), and waits for more while there are none. Commits are left to the purge.
     */
    private void indexDuring(EventIndex index, long nanos) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + nanos;
        for (long left = nanos; left > 0 && !closed; left = deadline - System.nanoTime()) {
            long target = ledger.size();
            if (index.size() < target) {
                LogReader.copy(ledger, index, Math.min(target, index.size() + LogReader.BATCH), n -> { }, () -> closed);
                reads.progress();
            } else {
                reads.awaitNudge(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }
    }

    private void commit(EventIndex index) throws IOException {
        index.commit();
        committedSize = index.size();
        lastCommitNanos = System.nanoTime();
    }

    static String progressLine(long done, long total, long elapsedNanos) {
        double rate = done / Math.max(1e-9, elapsedNanos / 1e9);
        long left = rate > 0 ? (long) ((total - done) / rate) : -1;
        return String.format("%,d of %,d events (%d%%), %,.0f events/s, %s left", done, total,
                total == 0 ? 100 : 100 * done / total, rate, left < 0 ? "?" : left + " s");
    }

    /** Brings the rebuilt index level with the log, makes it live and durable, and drops the old one. */
    private void swapIn(OnlineRebuild.Handoff h) throws IOException {
        try {
            LogReader.copy(ledger, h.index(), ledger.size(), rebuild::caughtUp, () -> closed);
            if (closed) {
                return;
            }
            h.index().commit();
        } catch (IndexWriterFailedException e) {
            rebuild.failedCatchingUp(h, e);
            return;
        }
        EventIndex old;
        swapLock.writeLock().lock();
        try {
            old = current;
            current = h.index();
            currentGeneration = h.generation();
            committedSize = h.index().size();
            rebuild.taken();
        } finally {
            swapLock.writeLock().unlock();
        }
        try {
            old.close();
        } finally {
            dirs.makeCurrent(h.generation());
        }
        rebuild.swappedIn(h);
        reads.progress();
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
        return new Status(current.size(), ledger.size(), currentGeneration.getFileName().toString(), rebuild.state(),
                lastFailure);
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
        swapLock.writeLock().lock();
        try {
            // A clean stop leaves the index level with the log unless that is a long job (a rebuild in
            // progress) or the index failed (the next start indexes from its last commit).
            if (current.writeFailure() == null) {
                long lag = ledger.size() - current.size();
                if (lag > 0 && lag <= CLOSE_CATCH_UP_LIMIT) {
                    LogReader.copy(ledger, current, ledger.size(), n -> { }, () -> false);
                }
                current.commit();
            }
        } finally {
            try {
                current.close();
            } finally {
                swapLock.writeLock().unlock();
            }
        }
    }
}
