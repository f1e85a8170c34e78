package io.trailproof.store;

import io.trailproof.background.Pacer;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.CompletableFuture;

/**
 * An append-only log of opaque payloads, addressed by a 0-based index (src/site/storage.md).
 *
 * <p><b>Atomicity:</b> one {@link #append} call is one group: after a crash either every payload of
 * the group is in the log or none is (the group ends in a commit frame; an uncommitted tail is cut
 * off on open).
 *
 * <p><b>Durability:</b> {@link #append} returns once the group is written to the operating system,
 * <em>not</em> once it is on disk. A group is durable once {@link #awaitDurable} covering it has
 * returned (or {@link #whenDurable} completed normally); concurrent callers share one
 * {@code force} (group commit). A durable group survives any crash; if it is later found damaged
 * or missing, opening the log fails ({@link AcknowledgedDataLostException}) instead of cutting it,
 * unless the operator accepted the loss.
 *
 * <p><b>Failure:</b> if a write or force fails, the log refuses every later append, and a group
 * whose {@link #awaitDurable} failed is absent after the log is reopened; never reported failed
 * and then present (a client's retry would store it twice). Payloads at or after
 * {@link #durableSize()} at the failure may then be unreadable.
 *
 * <p>Callers that need a global order (the ledger's sequencer) serialise their calls to
 * {@link #append}; reads may run concurrently with appends.
 */
public interface EventLog extends Closeable {

    /**
     * Appends the payloads as one group and returns the index of the first one. Not durable on
     * return. An empty list, and empty payloads, are not allowed ({@link IllegalArgumentException}).
     *
     * @throws IOException if the write fails, or an earlier write or force failed: the log then
     *     refuses all further appends until it is reopened (the service answers 503)
     */
    long append(List<byte[]> payloads) throws IOException;

    /**
     * Appends the payloads and the side records as one group and returns the index of the first
     * payload and each side record's address. A side record is stored in the group (src/site/storage.md:
     * "other frame kinds may sit in the same groups") but takes no index: {@link #size}, {@link #read},
     * {@link #scan} and {@link #readEach} never see it; {@link #readSide} reads it by its address.
     *
     * <p><b>Atomicity:</b> the side records are covered by the group's commit frame: after a crash
     * the payloads and side records of one call are all in the log or none is. <b>Durability:</b>
     * as {@link #append}; when {@code payloads} is not empty the group is durable once
     * {@link #awaitDurable} covers its payloads. A group of side records alone advances no index:
     * {@link #forceWritten} makes it durable.
     *
     * @throws IllegalArgumentException when both lists are empty, or for an empty payload
     */
    Appended append(List<byte[]> payloads, List<byte[]> sideRecords) throws IOException;

    /**
     * Forces everything written so far to disk now, on the caller's thread (not shared with other
     * callers): for a group of side records alone, which {@link #awaitDurable} cannot name.
     *
     * @throws IOException if the force fails (the log is then failed, as after any failed force,
     *     and what it covered is absent after a reopen) or the log has failed or is closed
     */
    void forceWritten() throws IOException;

    /** Where {@link #append(List, List)} put a group: its first payload's index and each side record's address. */
    record Appended(long first, long[] sideAddresses) {
    }

    /**
     * Reads the side record at {@code address} (from {@link #append(List, List)} or
     * {@link SideRecordVisitor}) from storage, checking its CRC.
     *
     * @throws CorruptLogException when the stored frame fails its check or is not a side record
     */
    byte[] readSide(long address) throws IOException;

    /** Registers the observer of group-commit forces (metrics); logs without group commit ignore it. */
    default void observeForces(ForceObserver observer) {
    }

    /**
     * Receives every committed side record of the log when it is opened, oldest first (from the
     * frames of the last segment, which the log checks when it opens, and from the seal records of
     * sealed segments, so this costs no extra read of the log). Side records of a torn or
     * uncommitted tail are not visited.
     */
    @FunctionalInterface
    interface SideRecordVisitor {
        SideRecordVisitor NONE = (address, payload) -> { };

        void accept(long address, byte[] payload) throws IOException;
    }

    /**
     * Blocks until every payload with an index below {@code endExclusive} is forced to disk.
     * Returns at once if they already are.
     *
     * @throws IllegalArgumentException if {@code endExclusive > size()}
     * @throws IOException if the force fails or the log has failed or is closed before the payloads
     *     became durable; the caller must not acknowledge them, and they are absent after a reopen
     */
    void awaitDurable(long endExclusive) throws IOException;

    /**
     * {@link #awaitDurable} without blocking: the future completes once every payload below
     * {@code endExclusive} is forced to disk (at once if they already are), or completes
     * exceptionally with the {@link IOException} {@link #awaitDurable} would throw. It may complete
     * on the thread that forces the log: what depends on it must be quick or move elsewhere.
     *
     * @throws IllegalArgumentException if {@code endExclusive > size()}
     */
    CompletableFuture<Void> whenDurable(long endExclusive);

    /** Number of payloads appended, durable or not. */
    long size();

    /** Number of payloads known to be forced to disk. Never decreases. */
    long durableSize();

    /**
     * Reads the payload at {@code index} from storage (not from a cache), checking its CRC.
     *
     * @throws CorruptLogException when the stored frame fails its check
     */
    byte[] read(long index) throws IOException;

    /** Visits payloads {@code [from, to)} in order, reading sequentially from storage. */
    void scan(long from, long to, PayloadVisitor visitor) throws IOException;

    /**
     * As {@link #scan}, handing each payload as a view of the read buffer instead of a copy of it:
     * for a reader that writes the bytes straight on (a replayed answer), so that a scan of a
     * thousand events does not allocate a thousand arrays. The view is valid only during the call.
     */
    default void scanViews(long from, long to, PayloadViewVisitor visitor) throws IOException {
        scan(from, to, (index, payload) -> visitor.accept(index, payload, 0, payload.length));
    }

    /**
     * Reads the payloads at the given indexes, in ascending order, from storage (CRC-checked),
     * reading neighbouring frames together: for visiting a sparse subset of the log, such as one
     * agent's chain. Stops at the first frame that fails its check.
     *
     * @throws CorruptLogException when a stored frame fails its check (earlier ones were visited)
     */
    void readEach(long[] ascendingIndexes, PayloadVisitor visitor) throws IOException;

    /**
     * The side records of the group whose commit ends the log at {@code size} payloads (the group of
     * payload {@code size - 1}), in order.
     *
     * @throws IllegalArgumentException when {@code size} is not the end of a group of durable payloads
     */
    default List<byte[]> groupSides(long size) throws IOException {
        throw new UnsupportedOperationException("this log does not read the side records of a group");
    }

    /**
     * The files that hold exactly the first {@code size} payloads, each cut just after the commit
     * frame of the group holding payload {@code size - 1} (so a copy of them opens as a log of
     * {@code size} payloads, cut at a committed point): for an online backup. Only durable
     * payloads may be named ({@code size <= durableSize()}); the prefixes named never change
     * afterwards. Changes nothing; takes no lock that appends wait for.
     *
     * @throws UnsupportedOperationException when this log is not kept in local files
     * @throws IllegalArgumentException when {@code size > durableSize()}
     */
    default List<FilePrefix> committedFiles(long size) throws IOException {
        throw new UnsupportedOperationException("this log is not kept in local files; back it up with its own tools");
    }

    /**
     * Replaces the payloads at the keys of {@code replacements} (each below {@link #durableSize()})
     * by the values, passing every side record stored beside them through {@code sides}: the one
     * change to stored payloads the log allows, for an erasure (src/site/erasure.md#physically-gone).
     * Indexes, order and counts never change; side record addresses may ({@link Rewritten#movedSides}).
     *
     * <p><b>Atomicity:</b> per file: a crash leaves each file holding either its old or its new
     * content, never a mix, and never changes another payload; a call interrupted by a crash may
     * have replaced some files and not others, which the caller finds and finishes (the log
     * keeps no record of the call). <b>Durability:</b> on return, the new content is on disk and
     * the old is no longer in the log's directory. Readers see the old or the new payload.
     *
     * @throws UnsupportedOperationException when this log cannot rewrite
     */
    default Rewritten rewrite(NavigableMap<Long, byte[]> replacements, SideRewriter sides)
            throws IOException {
        throw new UnsupportedOperationException("this log cannot rewrite stored payloads");
    }

    /**
     * As {@link #rewrite(java.util.NavigableMap, SideRewriter)}, telling {@code probe} after each
     * file's new content is durable under its temporary name ({@code segment-written}) and after
     * each replace is durable ({@code segment-renamed}), and calling {@code pacer} after each file
     * (between files, the log holds no lock that appends or reads wait for).
     */
    default Rewritten rewrite(NavigableMap<Long, byte[]> replacements, SideRewriter sides, StepProbe probe,
                              Pacer pacer) throws IOException {
        return rewrite(replacements, sides);
    }

    /** Rewrites one side record for {@link #rewrite}: returns its new payload, or the same array to keep it. */
    @FunctionalInterface
    interface SideRewriter {
        SideRewriter KEEP = payload -> payload;

        byte[] rewrite(byte[] payload) throws IOException;
    }

    /** What {@link #rewrite} did: side record addresses that changed (old to new) and the files rewritten. */
    record Rewritten(Map<Long, Long> movedSides, int files) {
    }

    /**
     * Receives payloads from {@link #scanViews}: the payload is {@code buf[offset, offset + length)},
     * valid only until the call returns (the buffer is reused for the next one); never to be changed.
     */
    @FunctionalInterface
    interface PayloadViewVisitor {
        void accept(long index, byte[] buf, int offset, int length) throws IOException;
    }

    /** Receives payloads from {@link #scan}. */
    @FunctionalInterface
    interface PayloadVisitor {
        void accept(long index, byte[] payload) throws IOException;
    }
}
