package io.trailproof.index;

import io.trailproof.background.Pacer;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LogRanges;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BooleanSupplier;

/**
 * The thread that keeps the live index level with the ledger (src/site/search.md#how-the-index-follows-the-log):
 * it reads every durable event from the log in log order and adds it, commits now and then, replaces
 * erased events' documents, reopens the index after a failed write and swaps in a rebuilt one. It is
 * the live index's only writer and the only one that changes which index is live (under the write
 * lock of {@code swapLock}); readers take the read lock and ask {@link #current()}.
 */
final class IndexFollower {

    /** Logged under the search index's name: operators read one logger for the index. */
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
    /** Most events whose new documents one step of a purge holds in memory (src/site/erasure.md#memory). */
    static final int PURGE_CHUNK_EVENTS = 4096;
    /** Most payload bytes one step of a purge holds in memory. */
    static final long PURGE_CHUNK_BYTES = 16L << 20;

    private final Ledger ledger;
    private final IndexDirectory dirs;
    private final IndexOptions options;
    private final Clock clock;
    private final ReentrantReadWriteLock swapLock;
    private final IndexReads reads;
    private final OnlineRebuild rebuild;
    private final BooleanSupplier closed;
    private final Thread thread;

    private volatile EventIndex current;
    private volatile Path currentGeneration;
    private volatile SearchIndex.Failure lastFailure;
    private long committedSize;
    private long lastCommitNanos = System.nanoTime();
    private long lastReopenNanos = System.nanoTime() - REOPEN_BACKOFF_NANOS; // the follower's thread only
    /** Set by {@link #hold}: the follower waits before its next step. */
    private volatile CountDownLatch hold;
    /** Set while the follower waits at {@link #hold}. */
    private volatile boolean holding;
    /** A live index whose check found it damaged, for the follower to replace; null when none. */
    private final AtomicReference<Damage> damaged = new AtomicReference<>();
    /** Erasures waiting for the follower: the log indexes whose documents are to be replaced. */
    private final ConcurrentLinkedQueue<Purge> purges = new ConcurrentLinkedQueue<>();

    private record Damage(EventIndex index, Exception cause) {
    }

    private record Purge(LogRanges logIndexes, double shareWhileIngesting, CompletableFuture<Void> done) {
    }

    /**
     * A follower of {@code index} (opened from {@code generation}); it stops once {@code closed} says so.
     * Not started: {@link #start}.
     */
    IndexFollower(Ledger ledger, IndexDirectory dirs, IndexOptions options, Clock clock, EventIndex index,
                  Path generation, ReentrantReadWriteLock swapLock, IndexReads reads, OnlineRebuild rebuild,
                  BooleanSupplier closed) {
        this.ledger = ledger;
        this.dirs = dirs;
        this.options = options;
        this.clock = clock;
        this.current = index;
        this.currentGeneration = generation;
        this.committedSize = index.size();
        this.swapLock = swapLock;
        this.reads = reads;
        this.rebuild = rebuild;
        this.closed = closed;
        this.thread = new Thread(this::follow, "trailproof-index");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** The live index. */
    EventIndex current() {
        return current;
    }

    /** The directory of the live index's generation. */
    Path currentGeneration() {
        return currentGeneration;
    }

    /** The last failed write since the start, or null. */
    SearchIndex.Failure lastFailure() {
        return lastFailure;
    }

    private void follow() {
        long catchUpStart = 0;
        long catchUpFrom = 0;
        long lastProgressLog = 0;
        while (!closed.getAsBoolean()) {
            try {
                awaitHold();
                OnlineRebuild.Handoff h = rebuild.handoff();
                if (h != null) {
                    swapIn(h);
                    continue;
                }
                Damage d = damaged.get();
                if (d != null) {
                    try {
                        replace(d);
                    } finally {
                        damaged.compareAndSet(d, null);
                    }
                    continue;
                }
                EventIndex index = current;
                IndexWriterFailedException broken = index.writeFailure();
                if (broken != null) {
                    reopen(index, broken);
                    continue;
                }
                if (!purges.isEmpty()) {
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
                    LogReader.copy(ledger, index, Math.min(target, index.size() + LogReader.BATCH), n -> { }, closed);
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
                if (closed.getAsBoolean()) {
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
     * the follower fills from the log. Logged, and shown by {@link SearchIndex#status()} and in the
     * 503 of a request that waited for the index meanwhile.
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
            lastFailure = new SearchIndex.Failure(clock.instant(), String.valueOf(cause.getMessage()), action);
        } finally {
            swapLock.writeLock().unlock();
        }
        LOG.log(System.Logger.Level.ERROR, "search index: writing failed; " + action + " (" + held + " of "
                + ledger.size() + " events held)", cause);
        reads.progress();
    }

    /**
     * Has the follower replace {@code index}, found damaged after it was opened, by a fresh generation
     * that it fills from the log (the damaged one is moved aside); nothing when it is no longer live.
     */
    void replaceDamaged(EventIndex index, Exception cause) {
        damaged.set(new Damage(index, cause));
        reads.nudgeFollower();
    }

    private void replace(Damage d) throws IOException {
        String action;
        swapLock.writeLock().lock();
        try {
            if (current != d.index()) {
                return;
            }
            try {
                d.index().close();
            } catch (IOException | RuntimeException e) {
                d.cause().addSuppressed(e);
            }
            Path aside = dirs.moveAside(currentGeneration);
            Map.Entry<LuceneEventIndex, Path> fresh = LiveGeneration.fresh(dirs, options);
            current = fresh.getKey();
            currentGeneration = fresh.getValue();
            committedSize = 0;
            action = "the index is damaged; moved it to " + aside + " and rebuilding it from the log";
            lastFailure = new SearchIndex.Failure(clock.instant(), String.valueOf(d.cause().getMessage()), action);
        } finally {
            swapLock.writeLock().unlock();
        }
        LOG.log(System.Logger.Level.ERROR, "search index: " + action + " (" + ledger.size() + " events)", d.cause());
        reads.progress();
    }

    /**
     * True from a failed check's {@link #replaceDamaged} until the follower has replaced that index
     * (or found it no longer live): closing the damaged index marks it checked before it is moved aside.
     */
    boolean replacingDamaged() {
        return damaged.get() != null;
    }

    /** See {@link SearchIndex#holdFollower}. */
    AutoCloseable hold() {
        CountDownLatch latch = new CountDownLatch(1);
        hold = latch;
        return () -> {
            hold = null;
            latch.countDown();
        };
    }

    private void awaitHold() throws InterruptedException {
        CountDownLatch latch = hold;
        while (latch != null && !closed.getAsBoolean() && !latch.await(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
            holding = true;
            latch = hold;
        }
        holding = false;
    }

    /** True while the follower waits at a {@link #hold}: it takes no further step until released. */
    boolean held() {
        return holding;
    }

    // ---------------------------------------------------------------- erasure (src/site/erasure.md)

    /** See {@link SearchIndex#purge}: queued for the follower, the index's one writer. */
    CompletableFuture<Void> purge(LogRanges logIndexes, double shareWhileIngesting) {
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
        for (long left = nanos; left > 0 && !closed.getAsBoolean(); left = deadline - System.nanoTime()) {
            long target = ledger.size();
            if (index.size() < target) {
                LogReader.copy(ledger, index, Math.min(target, index.size() + LogReader.BATCH), n -> { }, closed);
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
        reads.committed(index);
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
            LogReader.copy(ledger, h.index(), ledger.size(), rebuild::caughtUp, closed);
            if (closed.getAsBoolean()) {
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

    // ---------------------------------------------------------------- stop

    /** Waits up to {@code millis} for the thread to end (after {@code closed} said so). */
    void join(long millis) throws InterruptedException {
        thread.join(millis);
    }

    /**
     * After the thread ended: leaves the live index level with the log unless that is a long job
     * (more than {@value #CLOSE_CATCH_UP_LIMIT} events behind) or the index failed (the next start
     * indexes from its last commit), commits, and closes it.
     */
    void closeIndex() throws IOException {
        swapLock.writeLock().lock();
        try {
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
