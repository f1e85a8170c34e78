package io.trailproof.capture;

import io.trailproof.core.capture.CaptureFacts;
import io.trailproof.core.capture.CaptureState;
import io.trailproof.ledger.Ledger;
import io.trailproof.store.AtomicFile;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * The capture streams of the log (src/site/completeness.md#gaps), kept up with the log: every
 * stored event's capture fields and every {@code GAP} event are applied in log order to one
 * {@link CaptureState}.
 *
 * <p><b>Restarts.</b> The state is derived from the log. A snapshot ({@code DIR/capture/state.bin},
 * replaced atomically) records it with the log size it covers, written every
 * {@link #SNAPSHOT_EVERY_EVENTS} events and at {@link #close}; at open the snapshot is read and the
 * log after it applied in the background, so a start replays at most that many events, and a kill -9 loses
 * nothing (the log is the truth: a missing, unreadable or too new snapshot means a replay from the
 * log's start). Holes reported by a {@code GAP} in the log stay reported.
 *
 * <p>Thread-safe: {@link #catchUp}, {@link #due} and {@link #release} take one lock.
 */
public final class CaptureTracker {

    private static final System.Logger LOG = System.getLogger(CaptureTracker.class.getName());
    /** Events between two snapshots: the most a start replays. */
    public static final long SNAPSHOT_EVERY_EVENTS = 250_000;
    private static final long FORMAT = 0x54504331L;   // "TPC1"

    private final Ledger ledger;
    private final Path file;
    private final Object lock = new Object();
    // Guarded by lock.
    private CaptureState state;
    private long position;
    private long snapshotAt;

    private CaptureTracker(Ledger ledger, Path file, CaptureState state, long position) {
        this.ledger = ledger;
        this.file = file;
        this.state = state;
        this.position = position;
        this.snapshotAt = position;
    }

    /**
     * Reads the snapshot in {@code dataDir} (if usable); the log after it is applied by the first
     * {@link #catchUp} (on the reporter's thread, so a long replay never delays the start).
     */
    public static CaptureTracker open(Path dataDir, Ledger ledger) throws IOException {
        Path file = dataDir.resolve("capture").resolve("state.bin");
        CaptureState state = null;
        long position = 0;
        try (InputStream raw = Files.newInputStream(file);
             DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16))) {
            if (in.readLong() != FORMAT) {
                throw new IOException("unknown format");
            }
            position = in.readLong();
            state = CaptureState.read(in);
            if (position > ledger.size() || position < 0) {
                LOG.log(System.Logger.Level.WARNING, "the capture state snapshot covers " + position
                        + " events but the log holds " + ledger.size() + "; rebuilding it from the log");
                state = null;
            }
        } catch (NoSuchFileException e) {
            // first start, or deleted: rebuilt from the log
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "the capture state snapshot " + file + " is unreadable (" + e
                    + "); rebuilding it from the log");
            state = null;
        }
        if (state == null) {
            state = new CaptureState();
            position = 0;
        }
        return new CaptureTracker(ledger, file, state, position);
    }

    /** Applies the events stored since the last call; writes a snapshot when enough were. */
    public void catchUp() throws IOException {
        synchronized (lock) {
            long end = ledger.size();
            if (end > position) {
                ledger.scan(position, end, (index, payload) -> {
                    CaptureFacts f = CaptureFacts.read(payload);
                    if (f != null) {
                        state.apply(f);
                    }
                });
                position = end;
            }
            if (position - snapshotAt >= SNAPSHOT_EVERY_EVENTS) {
                writeSnapshot();
            }
        }
    }

    /** Holes due now, handed out once (see {@link CaptureState#due}). */
    public List<CaptureState.Due> due(long nowMillis, long gapAfterMillis) {
        synchronized (lock) {
            return state.due(nowMillis, gapAfterMillis);
        }
    }

    /** A report that was not written: its holes may be reported again. */
    public void release(CaptureState.Due d) {
        synchronized (lock) {
            state.release(d);
        }
    }

    /** The log size the state covers. */
    public long position() {
        synchronized (lock) {
            return position;
        }
    }

    /** Catches up with the log and writes a snapshot of everything (at shutdown). */
    public void close() throws IOException {
        synchronized (lock) {
            catchUp();
            if (position != snapshotAt || !Files.exists(file)) {
                writeSnapshot();
            }
        }
    }

    private void writeSnapshot() throws IOException {
        Path dir = file.getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve(".state.bin.tmp");
        try (FileOutputStream raw = new FileOutputStream(tmp.toFile());
             DataOutputStream out = new DataOutputStream(new BufferedOutputStream(raw, 1 << 16))) {
            out.writeLong(FORMAT);
            out.writeLong(position);
            state.write(out);
            out.flush();
            raw.getFD().sync();
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        AtomicFile.forceDirectory(dir);
        snapshotAt = position;
    }
}
