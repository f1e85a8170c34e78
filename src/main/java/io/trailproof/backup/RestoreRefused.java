package io.trailproof.backup;

/**
 * A restore that was refused: the archive is damaged, truncated, altered or not a backup, or the
 * target is not an absent or empty directory. The message is one sentence a person can act on; the
 * target directory was left as it was (absent or empty).
 */
public final class RestoreRefused extends Exception {
    private final boolean targetProblem;

    public RestoreRefused(String message) {
        this(message, false);
    }

    private RestoreRefused(String message, boolean targetProblem) {
        super(message);
        this.targetProblem = targetProblem;
    }

    /** Refused because of where it was to go (not absent or empty), not because of the archive. */
    static RestoreRefused target(String message) {
        return new RestoreRefused(message, true);
    }

    /** True when the target directory, not the archive, was the problem (a usage error). */
    public boolean targetProblem() {
        return targetProblem;
    }

    public RestoreRefused(String message, Throwable cause) {
        super(message, cause);
        this.targetProblem = false;
    }
}
