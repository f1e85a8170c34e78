package io.trailproof.backup;

import io.trailproof.checkpoint.CheckpointKeys;
import io.trailproof.checkpoint.CheckpointService;
import io.trailproof.checkpoint.WitnessClient;

import java.util.regex.Pattern;

/**
 * Which files of a data directory a backup holds, by their path relative to it (also their tar
 * entry name): the source of truth and the state that cannot be rebuilt from it. Everything else in
 * the directory is derived and rebuilt by the service at start (the Merkle node files, the
 * chain-head snapshot and the position journal, the search index), or describes the running log
 * rather than the copy ({@code forced-size}, the lock), and is left out.
 */
public final class BackupLayout {
    /** Event log segments (src/site/storage.md). */
    public static final String LOG_DIR = "log";
    /** Timestamp record segments (src/site/storage.md). */
    public static final String TIMESTAMPS_DIR = "timestamps";
    /** The checkpoint signing key, when it is kept in the data directory (src/site/checkpoints.md). */
    public static final String SIGNING_KEY = CheckpointKeys.KEY_FILE;
    /** The last signed checkpoint (with its cosignatures): the log never signs against it. */
    public static final String SIGNED_CHECKPOINT = CheckpointService.STATE_FILE;
    /** Witness split-view alarms, kept so that a restored log does not resume sending to such a witness. */
    public static final String WITNESS_ALARMS = WitnessClient.ALARMS_DIR;

    private static final Pattern SEGMENT = Pattern.compile("(log|timestamps)/[0-9]{20}\\.seg");
    private static final Pattern ALARM = Pattern.compile(Pattern.quote(WITNESS_ALARMS)
            + "/[A-Za-z0-9_+\\-][A-Za-z0-9._+\\-]{0,79}");

    private BackupLayout() {
    }

    /**
     * Whether a backup may hold a file of this name: one of the names above, never an absolute
     * path, a {@code ..} step, a hidden file or anything outside these directories (so an entry
     * name can never reach outside the directory it is restored into).
     */
    public static boolean allowed(String name) {
        return SEGMENT.matcher(name).matches() || name.equals(SIGNING_KEY) || name.equals(SIGNED_CHECKPOINT)
                || ALARM.matcher(name).matches();
    }

    /** Owner-only for the signing key (as the service makes it), readable otherwise. */
    static int mode(String name) {
        return name.equals(SIGNING_KEY) ? 0600 : 0644;
    }
}
