package io.trailproof.index;

import io.trailproof.background.Pacer;
import io.trailproof.index.SearchIndex.Rebuild;
import io.trailproof.ledger.Ledger;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.SortedMap;
import java.util.function.BooleanSupplier;

/**
 * The online rebuild (src/site/storage.md): a new index generation built from the log beside the live one,
 * on its own thread, while the live one keeps answering. Once the new index is within one batch of
 * the log it is handed to the follower ({@link #handoff}), which brings it level, swaps it in and
 * reports back ({@link #swappedIn} or {@link #failedCatchingUp}); the follower alone swaps, so the
 * live index changes on one thread only. At most one rebuild runs at a time; its state is what
 * {@code GET /v1/admin/index} shows.
 */
final class OnlineRebuild {

    /** Logs under the search index's name, as before it was split: log settings for it still apply. */
    private static final System.Logger LOG = System.getLogger(SearchIndex.class.getName());

    /** A freshly built index waiting for the follower to swap it in. */
    record Handoff(EventIndex index, Path generation) {
    }

    private final Ledger ledger;
    private final IndexDirectory dirs;
    private final IndexOptions options;
    private final Clock clock;
    private final BooleanSupplier closed;
    private final Runnable handedOff;
    private volatile Rebuild state;
    private volatile Thread builder;
    private volatile Handoff handoff;
    /**
     * Guards {@link #building} and each batch the rebuild reads from the log and adds to it, so an
     * erasure's purge ({@link #purge}) either sees a batch whole in the new index and replaces it, or
     * comes before it and the batch reads the rewritten log (src/site/erasure.md#crash-safety-of-an-erasure).
     */
    private final Object copying = new Object();
    /** The index being built and not yet live, or null. */
    private EventIndex building;

    /**
     * @param closed    true once the service stops: a rebuild then gives up, and none starts
     * @param handedOff called when a built index waits in {@link #handoff}, to wake the follower
     */
    OnlineRebuild(Ledger ledger, IndexDirectory dirs, IndexOptions options, Clock clock, BooleanSupplier closed,
                  Runnable handedOff) {
        this.ledger = ledger;
        this.dirs = dirs;
        this.options = options;
        this.clock = clock;
        this.closed = closed;
        this.handedOff = handedOff;
    }

    /** The last rebuild's state, or null when none was started. */
    Rebuild state() {
        return state;
    }

    /** See {@link SearchIndex#startRebuild}. */
    synchronized Rebuild start() {
        if (closed.getAsBoolean()) {
            throw new IllegalStateException("the search index is closed");
        }
        Rebuild r = state;
        if (r != null && r.state().equals("running")) {
            return r;
        }
        state = new Rebuild("running", clock.instant(), null, 0, ledger.size(), null);
        Thread t = new Thread(this::run, "trailproof-index-rebuild");
        t.setDaemon(true);
        builder = t;
        t.start();
        return state;
    }

    private void run() {
        Path generation = null;
        LuceneEventIndex fresh = null;
        Instant started = state.startedAt();
        try {
            generation = dirs.newGeneration();
            fresh = LuceneEventIndex.open(generation, options);
            synchronized (copying) {
                building = fresh;
            }
            LOG.log(System.Logger.Level.INFO, "search index: rebuilding into " + generation.getFileName() + " ("
                    + ledger.size() + " events)");
            long begin = System.nanoTime();
            long lastLog = begin;
            // Catch up in rounds; the last small stretch is done by the follower during the swap.
            while (!closed.getAsBoolean() && ledger.size() - fresh.size() > LogReader.BATCH) {
                long total = ledger.size();
                synchronized (copying) {
                    LogReader.copy(ledger, fresh, Math.min(total, fresh.size() + LogReader.BATCH), this::caughtUp, closed);
                }
                long now = System.nanoTime();
                if (now - lastLog >= IndexFollower.PROGRESS_LOG_NANOS) {
                    lastLog = now;
                    LOG.log(System.Logger.Level.INFO, "search index rebuild: " + IndexFollower.progressLine(fresh.size(),
                            total, now - begin));
                }
            }
            if (closed.getAsBoolean()) {
                notBuilding();
                fresh.close();
                return;
            }
            handoff = new Handoff(fresh, generation);
            handedOff.run();
        } catch (Exception | Error e) {
            LOG.log(System.Logger.Level.ERROR, "search index rebuild failed; the live index keeps answering", e);
            state = new Rebuild("failed", started, clock.instant(), fresh == null ? 0 : fresh.size(), ledger.size(),
                    String.valueOf(e.getMessage()));
            if (fresh != null) {
                notBuilding();
                remove(fresh, generation);
            }
        }
    }

    // ---------------------------------------------------------------- the follower's side

    /** The built index waiting to be swapped in, or null. */
    Handoff handoff() {
        return handoff;
    }

    /** Progress of the running rebuild: {@code done} log entries are in the new index. */
    void caughtUp(long done) {
        Rebuild r = state;
        if (r != null && r.state().equals("running")) {
            state = new Rebuild("running", r.startedAt(), null, done, Math.max(done, ledger.size()), null);
        }
    }

    /**
     * An erasure (src/site/erasure.md#crash-safety-of-an-erasure): replaces, in the index being built,
     * the documents of the events the map names by the erased ones, so the rebuild cannot bring
     * erased content back. Called by the follower after the live index was purged.
     */
    void purge(SortedMap<Long, byte[]> erased) throws IOException {
        synchronized (copying) {
            if (building != null) {
                building.replace(erased, Pacer.unpaced());
            }
        }
    }

    private void notBuilding() {
        synchronized (copying) {
            building = null;
        }
    }

    /** The follower could not bring {@code h} level with the log: the rebuild fails and its index is removed. */
    void failedCatchingUp(Handoff h, IndexWriterFailedException e) {
        notBuilding();
        handoff = null;
        Rebuild r = state;
        state = new Rebuild("failed", r.startedAt(), clock.instant(), h.index().size(), ledger.size(),
                String.valueOf(e.getMessage()));
        LOG.log(System.Logger.Level.ERROR, "search index rebuild failed while catching up; the live index keeps "
                + "answering", e);
        remove(h.index(), h.generation());
    }

    /** {@code h} is taken by the follower, under the swap lock, as it becomes the live index. */
    void taken() {
        notBuilding();
        handoff = null;
    }

    /** {@code h} is live and durable, and the old generation dropped. */
    void swappedIn(Handoff h) {
        Rebuild r = state;
        state = new Rebuild("done", r.startedAt(), clock.instant(), h.index().size(), h.index().size(), null);
        LOG.log(System.Logger.Level.INFO, "search index: rebuilt index " + h.generation().getFileName() + " is live ("
                + h.index().size() + " events)");
    }

    // ---------------------------------------------------------------- stopping

    /** Waits up to {@code millis} for the building thread, which gives up once {@code closed} is true. */
    void awaitStopped(long millis) throws InterruptedException {
        Thread t = builder;
        if (t != null) {
            t.join(millis);
        }
    }

    /** Closes a built index that was never swapped in; its generation is removed at the next start. */
    void closePending() throws IOException {
        Handoff h = handoff;
        if (h != null) {
            h.index().close();
        }
    }

    private static void remove(EventIndex index, Path generation) {
        try {
            index.close();
            IndexDirectory.deleteTree(generation);
        } catch (IOException suppressed) {
            LOG.log(System.Logger.Level.WARNING, "could not remove " + generation + ": " + suppressed);
        }
    }
}
