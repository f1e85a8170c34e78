package io.trailproof.index;

import io.trailproof.core.event.StoredEvent;
import io.trailproof.ledger.Ledger;
import org.apache.lucene.index.CorruptIndexException;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The search index of a running service (CONTRACT 4.1, 4.2, 8). A background thread follows the
 * ledger and adds each durable event, so ingestion never waits for Lucene. A list or search first
 * waits until the index holds every event that was durable when the request started (read after
 * write), then answers from a refreshed searcher; the events themselves are read from the log.
 *
 * <p>On open, a missing index, a damaged one, or one that does not match the log is replaced by a
 * fresh one that the follower fills from the log, logging its progress; nobody needs to act.
 * {@link #startRebuild} builds a new index beside the live one while the live one keeps answering,
 * then swaps it in.
 */
public final class SearchIndex implements Closeable {

    private static final System.Logger LOG = System.getLogger(SearchIndex.class.getName());

    /** How long a request waits for the index to catch up before it is answered 503. */
    static final Duration CATCH_UP_WAIT = Duration.ofSeconds(30);
    /** The follower commits (makes the index durable) at most this often while events arrive. */
    static final Duration COMMIT_INTERVAL = Duration.ofSeconds(5);
    /** During a large catch-up (a rebuild at start) commits are rarer: each one flushes and merges segments. */
    static final Duration CATCH_UP_COMMIT_INTERVAL = Duration.ofSeconds(60);
    /** How often an idle follower looks at the ledger's size when nobody nudges it. */
    private static final long POLL_MILLIS = 20;
    private static final long PROGRESS_LOG_NANOS = 5_000_000_000L;
    private static final long LARGE_CATCH_UP = 10_000;
    /** At a clean stop, at most this many events are indexed before the final commit; the rest wait for the next start. */
    static final long CLOSE_CATCH_UP_LIMIT = 100_000;

    /** A page of results: stored events as read from the log, with score and highlights for searches. */
    public record Result(byte[] payload, float score, Map<String, List<String>> highlights) {
    }

    public record Results(long total, List<Result> results) {
    }

    /** What {@code GET /v1/admin/index} shows. */
    public record Status(long indexed, long logSize, String generation, Rebuild rebuild) {
        public boolean upToDate() {
            return indexed >= logSize;
        }
    }

    /** The last online rebuild: state {@code running}, {@code done} or {@code failed}. */
    public record Rebuild(String state, Instant startedAt, Instant finishedAt, long done, long total, String error) {
    }

    private final Ledger ledger;
    private final IndexDirectory dirs;
    private final Clock clock;
    private final ReentrantReadWriteLock swapLock = new ReentrantReadWriteLock();
    private final Object signal = new Object();
    private final Thread follower;

    private volatile EventIndex current;
    private volatile Path currentGeneration;
    private volatile boolean closed;
    private volatile Rebuild rebuild;
    private volatile Thread rebuilder;
    /** A freshly built index waiting for the follower to swap it in. */
    private volatile Handoff handoff;
    private boolean nudged; // guarded by signal
    private long committedSize;
    private long lastCommitNanos = System.nanoTime();

    private record Handoff(EventIndex index, Path generation) {
    }

    private SearchIndex(Ledger ledger, IndexDirectory dirs, Clock clock, EventIndex index, Path generation) {
        this.ledger = ledger;
        this.dirs = dirs;
        this.clock = clock;
        this.current = index;
        this.currentGeneration = generation;
        this.committedSize = index.size();
        this.follower = new Thread(this::follow, "trailproof-index");
        this.follower.setDaemon(true);
    }

    /** Opens (or replaces) the index in {@code dataDir/index/} and starts following the ledger. */
    public static SearchIndex open(Path dataDir, Ledger ledger, Clock clock) throws IOException {
        IndexDirectory dirs = new IndexDirectory(dataDir);
        Map.Entry<EventIndex, Path> opened = openLive(dirs, ledger);
        SearchIndex index = new SearchIndex(ledger, dirs, clock, opened.getKey(), opened.getValue());
        index.follower.start();
        return index;
    }

    /** The live index as found, or a fresh empty one when it is missing, damaged or out of step with the log. */
    static Map.Entry<EventIndex, Path> openLive(IndexDirectory dirs, Ledger ledger) throws IOException {
        Optional<Path> live = dirs.current();
        if (live.isPresent()) {
            EventIndex index = null;
            try {
                index = LuceneEventIndex.open(live.get());
            } catch (LuceneEventIndex.OtherFormatException e) {
                // Not damage: an upgrade. The new generation replaces it (makeCurrent deletes the old one).
                LOG.log(System.Logger.Level.WARNING, "the search index " + live.get() + " was written by another "
                        + "version (" + e.getMessage() + "); building it anew from the log");
            } catch (IOException e) {
                Path aside = dirs.moveAside(live.get());
                LOG.log(System.Logger.Level.WARNING, "the search index " + live.get() + " is damaged (" + e
                        + "); moved it to " + aside + " and rebuilding it from the log");
            }
            if (index != null) {
                String mismatch = mismatch(index, ledger);
                if (mismatch == null) {
                    dirs.deleteStale();
                    return Map.entry(index, live.get());
                }
                index.close();
                LOG.log(System.Logger.Level.WARNING, "the search index does not match the log (" + mismatch
                        + "); rebuilding it from the log");
            }
        } else if (ledger.size() > 0) {
            LOG.log(System.Logger.Level.WARNING, "there is no search index in " + dirs.root()
                    + "; building it from the log (" + ledger.size() + " events)");
        }
        Path generation = dirs.newGeneration();
        LuceneEventIndex fresh = LuceneEventIndex.open(generation);
        try {
            fresh.commit();
            dirs.makeCurrent(generation);
        } catch (IOException | RuntimeException e) {
            fresh.close();
            throw e;
        }
        return Map.entry(fresh, generation);
    }

    /** Why an index does not belong to this log, or null when it does. */
    private static String mismatch(EventIndex index, Ledger ledger) throws IOException {
        long size = index.size();
        if (size > ledger.size()) {
            return "it holds " + size + " events, the log only " + ledger.size();
        }
        if (size > 0 && index.lastHash() != null) {
            String inLog;
            try {
                inLog = StoredEvent.parse(ledger.payloadAt(size - 1)).hash();
            } catch (Exception e) {
                inLog = null;
            }
            if (!index.lastHash().equals(inLog)) {
                return "its last event, log index " + (size - 1) + ", has another hash in the log";
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- follower

    private void follow() {
        long catchUpStart = 0;
        long catchUpFrom = 0;
        long lastProgressLog = 0;
        while (!closed) {
            try {
                Handoff h = handoff;
                if (h != null) {
                    swapIn(h);
                    continue;
                }
                EventIndex index = current;
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
                    signalProgress();
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
                    synchronized (signal) {
                        if (!nudged && !closed) {
                            signal.wait(POLL_MILLIS);
                        }
                        nudged = false;
                    }
                }
            } catch (InterruptedException e) {
                if (closed) {
                    return;
                }
            } catch (Exception | Error e) {
                LOG.log(System.Logger.Level.ERROR, "search index: indexing failed; retrying in a second", e);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
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

    private void signalProgress() {
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    /** Brings the rebuilt index level with the log, makes it live and durable, and drops the old one. */
    private void swapIn(Handoff h) throws IOException {
        LogReader.copy(ledger, h.index(), ledger.size(), n -> updateRebuild(n), () -> closed);
        if (closed) {
            return;
        }
        h.index().commit();
        EventIndex old;
        swapLock.writeLock().lock();
        try {
            old = current;
            current = h.index();
            currentGeneration = h.generation();
            committedSize = h.index().size();
            handoff = null;
        } finally {
            swapLock.writeLock().unlock();
        }
        try {
            old.close();
        } finally {
            dirs.makeCurrent(h.generation());
        }
        Rebuild r = rebuild;
        rebuild = new Rebuild("done", r.startedAt(), clock.instant(), h.index().size(), h.index().size(), null);
        LOG.log(System.Logger.Level.INFO, "search index: rebuilt index " + h.generation().getFileName() + " is live ("
                + h.index().size() + " events)");
        signalProgress();
    }

    // ---------------------------------------------------------------- reads

    /**
     * One page of events matching the request, read from the log, newest first unless the request says
     * otherwise. Every event that was durable when this call started is considered.
     *
     * @throws BadQueryException when the query is malformed or too costly
     * @throws IndexUnavailableException when the index could not catch up in time or is damaged
     */
    public Results find(IndexRequest request) throws BadQueryException, IndexUnavailableException, IOException {
        long target = ledger.size();
        long deadline = System.nanoTime() + CATCH_UP_WAIT.toNanos();
        while (true) {
            awaitIndexed(target, deadline);
            swapLock.readLock().lock();
            try {
                EventIndex index = current;
                if (index.size() < target) {
                    continue; // swapped for a rebuilt index that is not yet level: wait for it
                }
                index.makeSearchable(target);
                EventIndex.Page page = index.find(request);
                List<Result> out = new ArrayList<>(page.hits().size());
                for (EventIndex.Hit hit : page.hits()) {
                    byte[] payload = ledger.payloadAt(hit.logIndex());
                    Map<String, List<String>> highlights = Map.of();
                    if (request.query() != null) {
                        try {
                            highlights = index.highlights(request.query(), StoredEvent.parse(payload));
                        } catch (io.trailproof.core.event.StoredEventFormatException e) {
                            highlights = Map.of();
                        }
                    }
                    out.add(new Result(payload, hit.score(), highlights));
                }
                return new Results(page.total(), out);
            } catch (CorruptIndexException e) {
                LOG.log(System.Logger.Level.ERROR, "search index is damaged (" + e + "); rebuilding it from the log");
                startRebuild();
                throw new IndexUnavailableException("the search index is damaged and is being rebuilt from the log; "
                        + "retry in a minute (progress: GET /v1/admin/index)");
            } finally {
                swapLock.readLock().unlock();
            }
        }
    }

    private void awaitIndexed(long target, long deadline) throws IndexUnavailableException {
        synchronized (signal) {
            while (current.size() < target) {
                if (closed) {
                    throw new IndexUnavailableException("the service is shutting down");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    long indexed = current.size();
                    throw new IndexUnavailableException("the search index is still catching up with the log ("
                            + indexed + " of " + target + " events indexed); retry shortly");
                }
                nudged = true;
                signal.notifyAll();
                try {
                    signal.wait(Math.max(1, Math.min(POLL_MILLIS, left / 1_000_000)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IndexUnavailableException("interrupted while waiting for the search index");
                }
            }
        }
    }

    // ---------------------------------------------------------------- administration

    public Status status() {
        return new Status(current.size(), ledger.size(), currentGeneration.getFileName().toString(), rebuild);
    }

    /**
     * Starts building a new index from the log in the background; the live index keeps answering
     * until the new one has caught up and is swapped in. Returns the rebuild's status; if one is
     * already running, that one's.
     */
    public synchronized Rebuild startRebuild() {
        if (closed) {
            throw new IllegalStateException("the search index is closed");
        }
        Rebuild r = rebuild;
        if (r != null && r.state().equals("running")) {
            return r;
        }
        rebuild = new Rebuild("running", clock.instant(), null, 0, ledger.size(), null);
        Thread t = new Thread(this::runRebuild, "trailproof-index-rebuild");
        t.setDaemon(true);
        rebuilder = t;
        t.start();
        return rebuild;
    }

    private void runRebuild() {
        Path generation = null;
        LuceneEventIndex fresh = null;
        Instant started = rebuild.startedAt();
        try {
            generation = dirs.newGeneration();
            fresh = LuceneEventIndex.open(generation);
            LOG.log(System.Logger.Level.INFO, "search index: rebuilding into " + generation.getFileName() + " ("
                    + ledger.size() + " events)");
            long begin = System.nanoTime();
            long lastLog = begin;
            // Catch up in rounds; the last small stretch is done by the follower during the swap.
            while (!closed && ledger.size() - fresh.size() > LogReader.BATCH) {
                long total = ledger.size();
                LogReader.copy(ledger, fresh, Math.min(total, fresh.size() + LogReader.BATCH), this::updateRebuild,
                        () -> closed);
                long now = System.nanoTime();
                if (now - lastLog >= PROGRESS_LOG_NANOS) {
                    lastLog = now;
                    LOG.log(System.Logger.Level.INFO, "search index rebuild: " + progressLine(fresh.size(), total,
                            now - begin));
                }
            }
            if (closed) {
                fresh.close();
                return;
            }
            handoff = new Handoff(fresh, generation);
            signalProgress();
        } catch (Exception | Error e) {
            LOG.log(System.Logger.Level.ERROR, "search index rebuild failed; the live index keeps answering", e);
            rebuild = new Rebuild("failed", started, clock.instant(), fresh == null ? 0 : fresh.size(), ledger.size(),
                    String.valueOf(e.getMessage()));
            if (fresh != null) {
                try {
                    fresh.close();
                    IndexDirectory.deleteTree(generation);
                } catch (IOException suppressed) {
                    LOG.log(System.Logger.Level.WARNING, "could not remove " + generation + ": " + suppressed);
                }
            }
        }
    }

    private void updateRebuild(long done) {
        Rebuild r = rebuild;
        if (r != null && r.state().equals("running")) {
            rebuild = new Rebuild("running", r.startedAt(), null, done, Math.max(done, ledger.size()), null);
        }
    }

    /** Stops following, commits what is indexed, and closes. A rebuild in progress is abandoned (and removed at the next start). */
    @Override
    public void close() throws IOException {
        closed = true;
        signalProgress(); // no interrupt: it would close the log's file channels under a read
        try {
            follower.join(60_000);
            Thread r = rebuilder;
            if (r != null) {
                r.join(60_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Handoff h = handoff;
        if (h != null) {
            h.index().close();
        }
        swapLock.writeLock().lock();
        try {
            // A clean stop leaves the index level with the log unless that is a long job (a rebuild in progress).
            long lag = ledger.size() - current.size();
            if (lag > 0 && lag <= CLOSE_CATCH_UP_LIMIT) {
                LogReader.copy(ledger, current, ledger.size(), n -> { }, () -> false);
            }
            current.commit();
        } finally {
            try {
                current.close();
            } finally {
                swapLock.writeLock().unlock();
            }
        }
    }
}
