package io.trailproof.timestamp;

import io.trailproof.core.timestamp.TimestampCheck;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.core.timestamp.TimestampVerification;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A stored timestamp checked against the log as it is now (src/site/timestamps.md#verification): the four checks and how
 * the current tree relates to the stamped one.
 */
public record LatestVerification(TimestampRecord record, TimestampVerification verification, long currentTreeSize,
                                 byte[] currentRoot) {

    public boolean valid() {
        return verification.valid();
    }

    /** True when nothing was appended since the timestamp: the current root is the stamped one. */
    public boolean currentRootMatches() {
        return currentTreeSize == record.treeSize() && Arrays.equals(currentRoot, record.merkleRootBytes());
    }

    /** The current tree extends the stamped one. */
    public boolean consistent() {
        return verification.passed(TimestampCheck.CONSISTENCY);
    }

    public String currentRootHex() {
        return HexFormat.of().formatHex(currentRoot);
    }
}
