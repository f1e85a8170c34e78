package io.trailproof.store;

import java.io.IOException;
import java.nio.file.Path;

/** Another trailproof process (or another owner in this JVM) holds the data directory's lock. */
public final class DataDirInUseException extends IOException {
    public DataDirInUseException(Path dataDir, String holder) {
        super("data directory " + dataDir + " is in use by another trailproof process"
                + (holder == null || holder.isBlank() ? "" : " (pid " + holder.strip() + ")"));
    }
}
