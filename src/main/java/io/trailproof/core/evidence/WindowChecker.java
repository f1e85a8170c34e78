package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.EvidenceFormat.*;
import static io.trailproof.core.evidence.FormatValues.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.StoredEvent;

import java.time.Instant;

/**
 * The check {@link EvidenceCheck#WINDOW}: when the package is a time slice, its first and last events
 * have a timestamp inside the requested window {@code [since, until)}.
 */
final class WindowChecker {
    private WindowChecker() {}

    /**
     * @param filter the package's {@code filter} member, or null
     * @param first  the first readable event, or null
     * @param last   the last readable event, or null
     */
    static CheckResult result(JsonNode filter, StoredEvent first, StoredEvent last) {
        Instant since = instant(text(filter, SINCE));
        Instant until = instant(text(filter, UNTIL));
        if (since == null && until == null) {
            return CheckResult.skipped(EvidenceCheck.WINDOW, "the whole chain was exported (no time window)");
        }
        if (first == null) {
            return CheckResult.skipped(EvidenceCheck.WINDOW, "the package contains no events");
        }
        Tally window = new Tally(EvidenceCheck.WINDOW);
        for (StoredEvent e : new StoredEvent[] {first, last}) {
            Instant t = instant(e.timestamp());
            if (t == null || (since != null && t.isBefore(since)) || (until != null && !t.isBefore(until))) {
                window.fail(e.sequence(), e.id(), "a timestamp in [" + (since == null ? "" : since) + ", "
                        + (until == null ? "" : until) + ")", e.timestamp(),
                        "the slice does not begin and end with events of the requested window");
            }
        }
        return window.result("the slice begins and ends with events whose timestamp is in the window");
    }
}
