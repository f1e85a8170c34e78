package io.trailproof.store;

import java.nio.file.Path;

/**
 * Events that were acknowledged (forced to disk before a client was told they were stored) are
 * missing or damaged at start: a log shorter than its checkpoint or its recorded forced size, or a
 * damaged group that a later force covered. Unlike a torn, never-acknowledged tail this is never cut
 * silently: the start stops, naming the file, the offset and how many acknowledged events are gone,
 * unless the operator chose to accept the loss ({@code --accept-truncation}).
 */
public final class AcknowledgedDataLostException extends CorruptLogException {
    private final long missingEvents;

    public AcknowledgedDataLostException(Path file, long offset, long missingEvents, String what) {
        super(file, offset, what + " (" + missingEvents + " acknowledged event" + (missingEvents == 1 ? "" : "s")
                + " missing; they were on disk when a client was told they were stored. Restore the data directory "
                + "from a backup, or start with --accept-truncation (storage.accept-truncation=true) to serve what "
                + "remains and report the loss on /health)");
        this.missingEvents = missingEvents;
    }

    /** How many acknowledged events are missing. */
    public long missingEvents() {
        return missingEvents;
    }
}
