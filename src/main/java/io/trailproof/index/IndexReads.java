package io.trailproof.index;

import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.index.SearchIndex.Failure;
import io.trailproof.index.SearchIndex.Result;
import io.trailproof.index.SearchIndex.Results;
import io.trailproof.ledger.Ledger;
import org.apache.lucene.index.CorruptIndexException;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * The read side of the search index (src/site/http-api.md#conventions, src/site/http-api.md#endpoints, src/site/storage.md): a list or search waits until the live
 * index holds every event that was durable when the request started (read after write), then
 * answers from a refreshed searcher with the events read from the log.
 *
 * <p>This is also the meeting point of readers and the follower that fills the index: a waiting
 * reader nudges the follower so it does not sleep out its poll interval, and the follower reports
 * each step with {@link #progress}, which wakes blocked readers and hands parked ones on. Which
 * index is live, and swapping or reopening it, stays with {@link IndexFollower}; a read holds
 * {@code swapReadLock} so the index it uses is not closed under it.
 */
final class IndexReads {

    /** Logs under the search index's name, as before it was split: log settings for it still apply. */
    private static final System.Logger LOG = System.getLogger(SearchIndex.class.getName());

    /**
     * How long work that must see every event (an erasure's matches) waits for the index to catch up
     * before it is refused.
     */
    static final Duration CATCH_UP_WAIT = Duration.ofSeconds(30);
    /**
     * How long a person's list or search waits for the index to catch up before it is answered from
     * what is indexed, with how far behind that is (src/site/search.md#read-after-write), unless
     * {@code index.catch-up-wait-ms} says otherwise ({@link #partialAfter(Duration)}).
     */
    static final Duration PARTIAL_AFTER = Duration.ofSeconds(5);
    /**
     * Requests that may wait for the index at once ({@link #findAsync}); more are answered at once from
     * what is indexed.
     * A waiting request holds no thread, only its connection and a few objects.
     */
    static final int MAX_WAITING = 4096;
    /**
     * A search that reads the trail of who looked makes the service's own records searchable first
     * when the last time was this long ago or more (the first after a quiet spell at once): each time
     * flushes a small segment of the trail's index, and the segments add up to merges. So such a
     * search sees every record indexed this long before it started, and searches that never read the
     * trail (those of an agent) never pay for it (src/site/sign-in.md#durability-and-cost).
     */
    static final Duration BACKGROUND_REFRESH_EVERY = Duration.ofSeconds(1);
    /** What a search of the trail of who looked alone reads. */
    private static final EventFilter TRAIL = new EventFilter(EventFields.ACCESS_AGENT, null, null, null, Map.of());
    /** A write failure this recent is named in the 503 of a request that waited for the index in vain. */
    private static final Duration FAILURE_SHOWN = Duration.ofMinutes(10);

    /** What the reads need from the owner of the live index. */
    interface Live {
        /** The index that answers now; it stays open while the caller holds the swap lock's read side. */
        EventIndex current();

        /** The last failed write to the index, or null when none failed since the start. */
        Failure lastFailure();

        /** Starts rebuilding the index from the log, because reading found it damaged. */
        void rebuildDamaged();
    }

    private final Ledger ledger;
    private final Clock clock;
    private final Lock swapReadLock;
    private final Live live;
    private final Object signal = new Object();
    private boolean nudged; // guarded by signal
    private boolean closed; // guarded by signal
    private final ParkedRequests parked = new ParkedRequests(MAX_WAITING);
    private final BackgroundRecords background = new BackgroundRecords(this::progress);
    private final AtomicLong cancelled = new AtomicLong();
    /** When the last refresh for the service's own records started (System.nanoTime). */
    private final AtomicLong backgroundRefreshedNanos = new AtomicLong(System.nanoTime() - BACKGROUND_REFRESH_EVERY.toNanos());
    private volatile Duration partialAfter = PARTIAL_AFTER;

    IndexReads(Ledger ledger, Clock clock, Lock swapReadLock, Live live) {
        this.ledger = ledger;
        this.clock = clock;
        this.swapReadLock = swapReadLock;
        this.live = live;
    }

    /** See {@link SearchIndex#find} ({@code partial} false) and {@link SearchIndex#findOrPartial} (true). */
    Results find(IndexRequest request, boolean partial)
            throws BadQueryException, IndexUnavailableException, IOException {
        long target = background.readTarget(ledger.size());
        long deadline = System.nanoTime() + (partial ? partialAfter : CATCH_UP_WAIT).toNanos();
        while (true) {
            if (!awaitIndexed(target, deadline)) {
                Results results = partial ? findPartial(request, target) : null;
                if (results == null) {
                    throw notCaughtUp(target);
                }
                return results;
            }
            Results results = findIfIndexed(request, target);
            if (results != null) {
                return results;
            }
        }
    }

    /** See {@link SearchIndex#answeringPartiallyAfter}. */
    void partialAfter(Duration wait) {
        if (wait.isNegative()) {
            throw new IllegalArgumentException("a wait cannot be negative: " + wait);
        }
        partialAfter = wait;
    }

    /** See {@link SearchIndex#backgroundRecords}. */
    BackgroundRecords background() {
        return background;
    }

    /** See {@link SearchIndex#searchesCancelled}. */
    long cancelled() {
        return cancelled.get();
    }

    /** See {@link SearchIndex#findAsync}. */
    CompletableFuture<Results> findAsync(IndexRequest request, Executor searchThreads) {
        CompletableFuture<Results> result = new CompletableFuture<>();
        findWhenIndexed(request, background.readTarget(ledger.size()), System.nanoTime() + partialAfter.toNanos(),
                searchThreads, result);
        return result;
    }

    // ---------------------------------------------------------------- the follower's side

    /** Wakes the follower from {@link #awaitNudge} (work for it other than new events). */
    void nudgeFollower() {
        synchronized (signal) {
            nudged = true;
            signal.notifyAll();
        }
    }

    /**
     * The follower's idle wait, once it holds every event of the log: returns after {@code millis},
     * or sooner when a reader nudged it (a request waits for events the index does not hold yet) or
     * the reads were closed.
     */
    void awaitNudge(long millis) throws InterruptedException {
        synchronized (signal) {
            if (!nudged && !closed) {
                signal.wait(millis);
            }
            nudged = false;
        }
    }

    /**
     * The live index grew, or was swapped or reopened, or {@link BackgroundRecords} were told: wakes
     * blocked readers and completes the parked ones it now covers. Called by whoever changed it, after
     * the change.
     */
    void progress() {
        synchronized (signal) {
            signal.notifyAll();
        }
        EventIndex index = live.current();
        if (index.writeFailure() == null) {
            parked.release(index.size(), background::readTarget);
        }
    }

    /**
     * After {@code index} committed, on the follower's thread: makes the {@link BackgroundRecords} it
     * holds searchable and forgets them. The commit flushed them, so this opens the segment it wrote
     * without flushing one of its own; and what is held here stays bounded while nobody searches the
     * trail. A failure is the writer's, which the follower handles at its next step.
     */
    void committed(EventIndex index) {
        try {
            makeBackgroundSearchable(index, 0);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "making the service's own records searchable failed: " + e);
        }
    }

    /**
     * Makes the trail of who looked's records that {@code index} holds searchable, and forgets them
     * as {@link BackgroundRecords}, unless the last time started less than {@code everyNanos} ago: a
     * no-op when none reached the index since. No read waits for them; one that reads the trail of who looked has them made
     * searchable first, at most once every {@link #BACKGROUND_REFRESH_EVERY} while they keep coming.
     * Concurrent callers may each refresh; the later ones find the index current.
     */
    private void makeBackgroundSearchable(EventIndex index, long everyNanos) throws IOException {
        long now = System.nanoTime(); // before the size is read: a record indexed before this instant is covered
        if (now - backgroundRefreshedNanos.get() < everyNanos) {
            return;
        }
        // Everything indexed, records not yet told included (the index may hold a record a moment
        // before its writer tells it); a no-op when nothing reached the trail's index since.
        long size = index.size();
        index.makeSearchable(size, TRAIL);
        background.searchableUpTo(size);
        backgroundRefreshedNanos.accumulateAndGet(now, Math::max);
    }

    /** Refuses every later wait and fails the parked requests: the service is stopping. */
    void close() {
        synchronized (signal) {
            closed = true;
        }
        parked.close();
    }

    // ---------------------------------------------------------------- reading

    private void findWhenIndexed(IndexRequest request, long target, long deadline, Executor searchThreads,
                                 CompletableFuture<Results> result) {
        whenIndexed(target, deadline).whenComplete((covered, notReady) -> {
            if (notReady != null) {
                result.completeExceptionally(notReady);
                return;
            }
            // This may run on the follower's thread (ParkedRequests): the search itself goes to searchThreads.
            try {
                searchThreads.execute(() -> {
                    try {
                        Results results = covered ? findIfIndexed(request, target) : findPartial(request, target);
                        if (results != null) {
                            result.complete(results);
                        } else if (covered) {
                            findWhenIndexed(request, target, deadline, searchThreads, result);
                        } else {
                            result.completeExceptionally(notCaughtUp(target));
                        }
                    } catch (Exception | Error e) {
                        result.completeExceptionally(e);
                    }
                });
            } catch (RejectedExecutionException e) {
                result.completeExceptionally(new IndexUnavailableException("the service is shutting down"));
            }
        });
    }

    /**
     * The page from the live index if it holds {@code target} events and can be written; null when it
     * does not (swapped for a rebuilt index that is not yet level, or a write failed and the follower
     * is reopening it): the caller waits again.
     */
    private Results findIfIndexed(IndexRequest request, long target)
            throws BadQueryException, IndexUnavailableException, IOException {
        swapReadLock.lock();
        try {
            EventIndex index = live.current();
            long t = background.readTarget(target); // records told since the request started need not be waited for
            return covers(index, t) ? search(index, request, t, t) : null;
        } finally {
            swapReadLock.unlock();
        }
    }

    /**
     * The page from what the live index holds of the first {@code target} events, with how many of them
     * it may lack; null when the index cannot answer at all (a write failed: it is being reopened).
     */
    private Results findPartial(IndexRequest request, long target)
            throws BadQueryException, IndexUnavailableException, IOException {
        swapReadLock.lock();
        try {
            EventIndex index = live.current();
            if (index.writeFailure() != null) {
                return null;
            }
            return search(index, request, Math.min(index.size(), target), target);
        } finally {
            swapReadLock.unlock();
        }
    }

    /**
     * Searches {@code index} made searchable up to {@code searchable} events, for a request that
     * asked for {@code target}; null when the index's writer failed meanwhile. Under the swap lock.
     */
    private Results search(EventIndex index, IndexRequest request, long searchable, long target)
            throws BadQueryException, IndexUnavailableException, IOException {
        try {
            try {
                index.makeSearchable(searchable, request.filter());
                if (EventFilter.mayMatchTrail(request.filter())) {
                    makeBackgroundSearchable(index, BACKGROUND_REFRESH_EVERY.toNanos());
                }
            } catch (IndexWriterFailedException e) {
                return null; // the follower reopens it and indexes again
            }
            EventIndex.Page page = index.find(request);
            Function<StoredEvent, Map<String, List<String>>> highlighter = request.query() == null
                    || request.positionsOnly() || page.hits().isEmpty() ? null : index.highlighter(request.query());
            List<Result> out = new ArrayList<>(page.hits().size());
            for (EventIndex.Hit hit : page.hits()) {
                if (request.positionsOnly()) {
                    out.add(new Result(hit.logIndex(), null, hit.score(), Map.of()));
                    continue;
                }
                byte[] payload = ledger.payloadAt(hit.logIndex());
                Map<String, List<String>> highlights = Map.of();
                if (highlighter != null) {
                    try {
                        highlights = highlighter.apply(StoredEvent.parse(payload));
                    } catch (StoredEventFormatException e) {
                        highlights = Map.of();
                    }
                }
                out.add(new Result(hit.logIndex(), payload, hit.score(), highlights));
            }
            return new Results(page.total(), out, page.summary(), target - searchable, !index.checked());
        } catch (SearchCancelledException e) {
            long n = cancelled.incrementAndGet();
            LOG.log(System.Logger.Level.INFO, "search cancelled: its client closed the connection before the answer ("
                    + n + " since the start)");
            throw e;
        } catch (CorruptIndexException e) {
            LOG.log(System.Logger.Level.ERROR, "search index is damaged (" + e + "); rebuilding it from the log");
            live.rebuildDamaged();
            throw new IndexUnavailableException("the search index is damaged and is being rebuilt from the log; "
                    + "retry in a minute (progress: GET /v1/admin/index)");
        }
    }

    /** Whether {@code index} holds the first {@code target} log entries and is fit to answer. */
    private static boolean covers(EventIndex index, long target) {
        return index.size() >= target && index.writeFailure() == null;
    }

    /** Waits until the live index covers {@code target} (true) or the deadline passes (false). */
    private boolean awaitIndexed(long target, long deadline) throws IndexUnavailableException {
        synchronized (signal) {
            while (!covers(live.current(), background.readTarget(target))) {
                if (closed) {
                    throw new IndexUnavailableException("the service is shutting down");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                nudged = true;
                signal.notifyAll();
                try {
                    signal.wait(Math.max(1, Math.min(IndexFollower.POLL_MILLIS, left / 1_000_000)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IndexUnavailableException("interrupted while waiting for the search index");
                }
            }
        }
        return true;
    }

    /**
     * Completes with true once the live index covers {@code target}, with false at the deadline or at
     * once when {@link #MAX_WAITING} requests wait already (the caller then answers from what is
     * indexed); fails only at close.
     */
    private CompletableFuture<Boolean> whenIndexed(long target, long deadline) {
        synchronized (signal) {
            if (closed) {
                return CompletableFuture.failedFuture(new IndexUnavailableException("the service is shutting down"));
            }
            if (covers(live.current(), background.readTarget(target))) {
                return CompletableFuture.completedFuture(true);
            }
            nudged = true;
            signal.notifyAll();
        }
        CompletableFuture<Void> ready = parked.park(target);
        if (ready == null) {
            return CompletableFuture.completedFuture(false);
        }
        EventIndex index = live.current();
        if (covers(index, background.readTarget(target))) {
            parked.release(index.size(), background::readTarget); // it grew between the check and the parking
        }
        long left = Math.max(1, deadline - System.nanoTime());
        return ready.orTimeout(left, TimeUnit.NANOSECONDS).thenApply(v -> true).exceptionallyCompose(e -> {
            parked.forget(ready);
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            return cause instanceof TimeoutException ? CompletableFuture.completedFuture(false)
                    : CompletableFuture.failedFuture(cause);
        });
    }

    /** The 503 of a request that waited in vain, with the last write failure if it is recent. */
    private IndexUnavailableException notCaughtUp(long target) {
        StringBuilder message = new StringBuilder("the search index is still catching up with the log (")
                .append(live.current().size()).append(" of ").append(target).append(" events indexed); retry shortly");
        Failure f = live.lastFailure();
        if (f != null && f.at().isAfter(clock.instant().minus(FAILURE_SHOWN))) {
            message.append(". At ").append(f.at()).append(" writing the index failed (").append(f.error())
                    .append("): the service ").append(f.action());
        }
        return new IndexUnavailableException(message.toString());
    }
}
