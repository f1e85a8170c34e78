package io.trailproof.index;

import io.trailproof.core.event.StoredEvent;
import io.trailproof.ledger.Ledger;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Which generation of {@code DIR/index/} a running service uses: the live one when it opens and
 * matches the log; otherwise (missing, damaged, another format, another log) a fresh empty one that
 * the follower fills from the log. Every replacement is logged; nobody needs to act. The live one is
 * opened without reading its files whole: their checksums are verified once the service runs, and
 * a failed check replaces it as damage found here would.
 */
final class LiveGeneration {

    private static final System.Logger LOG = System.getLogger(SearchIndex.class.getName());

    private LiveGeneration() {
    }

    /** The live index as found, or a fresh empty one when it is missing, damaged or out of step with the log. */
    static Map.Entry<EventIndex, Path> open(IndexDirectory dirs, Ledger ledger, IndexOptions options)
            throws IOException {
        Optional<Path> live = dirs.current();
        if (live.isPresent()) {
            EventIndex index = null;
            try {
                // The checksums are verified after the start ({@link SearchIndex#loading}): reading every
                // file whole would make the start grow with the index.
                index = LuceneEventIndex.openUnchecked(live.get(), options);
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
        Map.Entry<LuceneEventIndex, Path> fresh = fresh(dirs, options);
        return Map.entry(fresh.getKey(), fresh.getValue());
    }

    /** A new, empty, committed generation, made the live one (durable on return). */
    static Map.Entry<LuceneEventIndex, Path> fresh(IndexDirectory dirs, IndexOptions options) throws IOException {
        Path generation = dirs.newGeneration();
        LuceneEventIndex fresh = LuceneEventIndex.open(generation, options);
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
}
