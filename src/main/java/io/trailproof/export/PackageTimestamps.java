package io.trailproof.export;

import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.ledger.ChainSlice;

import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * Picks the timestamps an evidence package embeds (src/site/evidence-format.md), from the stored records offered
 * oldest first, holding two of them at most:
 *
 * <ul>
 *   <li><b>eligible</b>: a record whose {@code tree_size} is at most the package's tree size. A
 *       record of a larger tree was made after the package's snapshot; its tree is not an earlier
 *       state of the package's tree, so no consistency proof to it exists and it is left out (the
 *       next export includes it);</li>
 *   <li><b>earliest covering</b>: among eligible records whose tree holds the last exported event
 *       ({@code tree_size > log_index} of that event), the one with the earliest {@code timestamp}
 *       (the token's genTime; on a tie, the one stored first): it proves the earliest time by which
 *       every exported event existed;</li>
 *   <li><b>latest</b>: the eligible record stored last, as {@code GET /v1/timestamps} lists it first.</li>
 * </ul>
 *
 * The package holds the earliest covering one and then the latest, one entry when they are the
 * same, only the latest when none covers the last event (or the package has no events), and none
 * when no record is eligible.
 */
public final class PackageTimestamps {

    private final long lastLogIndex;
    private final long treeSize;
    private TimestampRecord earliestCovering;
    private Instant earliestTime;
    private TimestampRecord latest;

    /**
     * @param lastLogIndex the log index of the package's last event, or -1 when it has none
     * @param treeSize     the package's tree size
     */
    public PackageTimestamps(long lastLogIndex, long treeSize) {
        this.lastLogIndex = lastLogIndex;
        this.treeSize = treeSize;
    }

    /** The timestamps for a package of {@code slice}, read from {@code source}. */
    public static List<TimestampRecord> forSlice(ChainSlice slice, TimestampSource source) throws IOException {
        PackageTimestamps pick = new PackageTimestamps(slice.lastLogIndex(), slice.treeSize());
        source.forEachOldestFirst(pick::offer);
        return pick.selected();
    }

    /** Considers the next stored record; records must come oldest first. */
    public void offer(TimestampRecord record) {
        if (record.treeSize() > treeSize) {
            return;
        }
        latest = record;
        if (lastLogIndex >= 0 && record.treeSize() > lastLogIndex) {
            Instant t = genTime(record);
            if (earliestCovering == null || t.isBefore(earliestTime)) {
                earliestCovering = record;
                earliestTime = t;
            }
        }
    }

    /** The records to embed, in package order: earliest covering, then latest. */
    public List<TimestampRecord> selected() {
        if (latest == null) {
            return List.of();
        }
        if (earliestCovering == null || earliestCovering == latest) {
            return List.of(latest);
        }
        return List.of(earliestCovering, latest);
    }

    /** The record's genTime; one that cannot be read is never preferred as the earliest. */
    private static Instant genTime(TimestampRecord record) {
        try {
            return Instant.parse(record.timestamp());
        } catch (DateTimeParseException | NullPointerException e) {
            return Instant.MAX;
        }
    }
}
