package io.trailproof.ledger;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The durable dedupe table: dedupe key -> the record stored under it (src/site/ingestion.md#idempotency; built to serve
 * OTLP span dedupe by (trace id, span id) as well, src/site/ingestion.md#otlp, under its own
 * {@link DedupeRecord#namespace namespace}). Generic: a namespace and a digest name a key (scope
 * and path are folded into the digest by the caller, see {@link DedupeKey#of}); what a record says
 * (an HTTP answer, or a mere "already stored" marker) is the namespace's business.
 *
 * <p><b>Source of truth.</b> Every entry points at a {@link DedupeRecord} that the log holds as a
 * side frame of the same group as the events it answers for, so record and events are committed
 * (and survive a crash) together. This table is only an index over those records, rebuilt from
 * the log when the ledger opens ({@link #restore}): losing it loses nothing.
 *
 * <p><b>Bounded.</b> An entry is forgotten {@code retention} after it was recorded, and beyond
 * {@code maxKeys} entries the oldest are forgotten early. An entry holds 16 bytes of the key digest,
 * 8 bytes of the content digest, the time and the record's log address in flat arrays, plus its
 * slot in an open-addressing index at most half full: about 53 bytes a key, measured (53 MB for
 * 1,000,000 keys). The full
 * digests are checked against the record in the log before a replay (see {@link DedupeClaims#claim}).
 *
 * <p><b>In flight.</b> Between {@link #claim} and {@link #recorded} (the group is durable) or
 * {@link #release} (nothing recorded: a refusal, a failure), a key is claimed: a second claim
 * with the same content is told {@link InFlight}, with other content {@link Conflict}.
 *
 * <p><b>Loaded after the start.</b> A ledger's start restores only the records of the log's last
 * segment and leaves those of the sealed segments to a load after it ({@link #loadingKeys},
 * {@link #keysLoaded}): until then the table may lack a recorded key, so {@link DedupeClaims} makes
 * every keyed write wait for the load, at most {@link #KEYS_WAIT_SECONDS}, and then refuses it with a
 * {@link DedupeLoadingException} (nothing stored, retry shortly) instead of risking storing it twice.
 * Writes without a key do not wait.
 *
 * <p>Thread-safe: every operation holds this table's monitor for O(1) work (amortised).
 */
public final class DedupeTable {

    /** What {@link #claim} found. */
    public sealed interface Lookup permits Fresh, Recorded, Replay, Conflict, InFlight {
    }

    /** What {@link DedupeClaims#claim} makes of {@link Recorded}: the record, read back from the log and checked. */
    public record Replay(DedupeRecord record) implements Lookup {
    }

    /** Nothing recorded and nothing in flight: the caller now holds the claim and must record or release it. */
    public record Fresh(Claim claim) implements Lookup {
    }

    /** A record within retention with the same content digest prefix: its log address. */
    public record Recorded(long address) implements Lookup {
    }

    /** The key is recorded or in flight with other content. */
    public record Conflict() implements Lookup {
    }

    /** The key is in flight with the same content. */
    public record InFlight() implements Lookup {
    }

    /** A key held by one request until it is {@link #recorded} or {@link #release released}. */
    public static final class Claim {
        private final DedupeTable table;
        private final DedupeKey key;
        private final byte[] contentDigest;
        private boolean over;

        private Claim(DedupeTable table, DedupeKey key, byte[] contentDigest) {
            this.table = table;
            this.key = key;
            this.contentDigest = contentDigest.clone();
        }

        public DedupeKey key() {
            return key;
        }

        public byte[] contentDigest() {
            return contentDigest.clone();
        }

        /** Gives the key up without recording it (the request recorded nothing). Idempotent. */
        public void release() {
            table.release(this);
        }
    }

    /** How long a keyed write waits for the keys' load after the start before it is refused. */
    static final long KEYS_WAIT_SECONDS = 5;
    private static final int MIN_CAPACITY = 1024;
    private static final long DEAD = -1;

    private final long retentionMillis;
    private final int maxKeys;
    private final Clock clock;
    private final Map<DedupeKey, Claim> inFlight = new HashMap<>();
    /** Null once every record in the log is entered; otherwise why a keyed write is refused now. */
    private volatile String incomplete;
    /** Completes once every record is entered (exceptionally when they cannot be). */
    private volatile CompletableFuture<Void> keys = CompletableFuture.completedFuture(null);

    // Ring of entries in the order they were recorded; guarded by this.
    private long[] high;
    private long[] low;
    private long[] content;
    private long[] at;
    private long[] address;
    private int head;
    private int count;
    // Open-addressing index (linear probing): ring slot + 1, 0 = empty.
    private int[] index;
    private int mask;

    public DedupeTable(Duration retention, int maxKeys, Clock clock) {
        if (retention.isNegative() || retention.isZero() || maxKeys < 1) {
            throw new IllegalArgumentException("retention must be positive and maxKeys at least 1");
        }
        this.retentionMillis = retention.toMillis();
        this.maxKeys = maxKeys;
        this.clock = clock;
        allocate(Math.min(MIN_CAPACITY, maxKeys));
    }

    /** Marks the table incomplete: records of the log are still to be entered (see the class comment). */
    void loadingKeys() {
        keys = new CompletableFuture<>();
        incomplete = "the idempotency keys recorded before the start are still being loaded; nothing was stored, "
                + "retry in a second";
    }

    /** Every record of the log is entered: keyed writes are taken from now on. */
    void keysLoaded() {
        incomplete = null;
        keys.complete(null);
    }

    /** The records could not all be entered ({@code why}): keyed writes stay refused, saying so. */
    void keysFailed(String why) {
        incomplete = "the idempotency keys recorded before the start could not be loaded (" + why + "); keyed writes "
                + "are refused so that none is stored twice";
        keys.completeExceptionally(new IOException(incomplete));
    }

    /**
     * Waits until every record is entered: for a rewrite of the log, whose moved records
     * {@link #remap} must find in the table.
     *
     * @throws IOException when they cannot be entered, or the wait is interrupted
     */
    void awaitKeys() throws IOException {
        try {
            keys.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while the idempotency keys were loading");
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage(), e.getCause());
        }
    }

    /** True while records of the log are still to be entered (or could not be). */
    public boolean keysLoading() {
        return incomplete != null;
    }

    /**
     * Returns when every record is entered, waiting at most {@link #KEYS_WAIT_SECONDS} for the load.
     *
     * @throws DedupeLoadingException while the table may still lack a recorded key after that
     */
    void checkComplete() throws DedupeLoadingException {
        if (incomplete == null) {
            return;
        }
        try {
            keys.get(KEYS_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // refused below
        }
        String why = incomplete;
        if (why != null) {
            throw new DedupeLoadingException(why);
        }
    }

    /**
     * Looks the key up and, when it is neither recorded (within retention) nor in flight, claims
     * it for the caller ({@link Fresh}).
     */
    public synchronized Lookup claim(DedupeKey key, byte[] contentDigest) {
        long now = clock.millis();
        expire(now);
        long c = prefix(contentDigest);
        Claim holder = inFlight.get(key);
        if (holder != null) {
            return Arrays.equals(holder.contentDigest, contentDigest) ? new InFlight() : new Conflict();
        }
        int pos = find(key.high(), key.low());
        if (pos >= 0) {
            int slot = index[pos] - 1;
            if (now - at[slot] < retentionMillis) {
                return content[slot] == c ? new Recorded(address[slot]) : new Conflict();
            }
        }
        Claim claim = new Claim(this, key, contentDigest);
        inFlight.put(key, claim);
        return new Fresh(claim);
    }

    /**
     * For a replica applying a replicated keyed write (cluster mode): what the key holds at
     * {@code nowMillis}, the record's time, looking at recorded entries only; claims held by this
     * node's own requests do not count, since every replica must decide the same. Null when the key
     * is free. Expires entries up to {@code nowMillis} first, so expiry follows the log's time.
     */
    synchronized Lookup recordedAt(DedupeKey key, byte[] contentDigest, long nowMillis) {
        expire(nowMillis);
        int pos = find(key.high(), key.low());
        if (pos >= 0) {
            int slot = index[pos] - 1;
            if (nowMillis - at[slot] < retentionMillis) {
                return content[slot] == prefix(contentDigest) ? new Recorded(address[slot]) : new Conflict();
            }
        }
        return null;
    }

    /**
     * A claim that no request holds, for a replica that records a replicated keyed write
     * ({@link #recordedAt} found it free); {@link #recorded} enters it as any other.
     */
    Claim detached(DedupeKey key, byte[] contentDigest) {
        return new Claim(this, key, contentDigest);
    }

    /** The claim's record is durable in the log at {@code recordAddress}: enter it and end the claim. */
    synchronized void recorded(Claim claim, long recordAddress, long recordedAtMillis) {
        if (claim.over) {
            return;
        }
        claim.over = true;
        inFlight.remove(claim.key);
        put(claim.key.high(), claim.key.low(), prefix(claim.contentDigest), recordedAtMillis, recordAddress);
    }

    private synchronized void release(Claim claim) {
        if (!claim.over) {
            claim.over = true;
            inFlight.remove(claim.key);
        }
    }

    /** Enters a record found in the log at open (oldest first); records beyond retention are skipped. */
    synchronized void restore(DedupeRecord r, long recordAddress) {
        DedupeKey key = new DedupeKey(r.namespace(), r.keyDigest());
        if (clock.millis() - r.recordedAtMillis() >= retentionMillis) {
            return;
        }
        put(key.high(), key.low(), prefix(r.contentDigest()), r.recordedAtMillis(), recordAddress);
    }

    /**
     * {@link #restore(DedupeRecord, long)} straight from a side frame's payload, reading only the
     * fixed header (no copy of digests or answer: a start may pass a million of these). A payload
     * that is not a dedupe record of this version is skipped.
     */
    synchronized void restore(byte[] payload, long recordAddress, long nowMillis) {
        if (!DedupeRecord.isRecord(payload)) {
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        long at = b.getLong(3 + 2 * DedupeRecord.DIGEST_BYTES);
        if (nowMillis - at >= retentionMillis) {
            return;
        }
        long h = b.getLong(3) ^ payload[2];
        long l = b.getLong(3 + 8);
        put(h, l, b.getLong(3 + DedupeRecord.DIGEST_BYTES), at, recordAddress);
    }

    /**
     * Points the entries whose records an erasure's rewrite moved (src/site/erasure.md#physically-gone)
     * at their new log addresses. One pass over the table.
     */
    synchronized void remap(Map<Long, Long> moved) {
        if (moved.isEmpty()) {
            return;
        }
        for (int i = 0; i < count; i++) {
            int slot = ring(i);
            Long now = moved.get(address[slot]);
            if (now != null && address[slot] != DEAD) {
                address[slot] = now;
            }
        }
    }

    /** Keys recorded and not yet forgotten (expired entries not yet reached may be counted). */
    public synchronized int size() {
        int live = 0;
        for (int i = 0; i < count; i++) {
            if (address[ring(i)] != DEAD) {
                live++;
            }
        }
        return live;
    }

    public synchronized int inFlight() {
        return inFlight.size();
    }

    // ------------------------------------------------------------------ the ring and its index

    private void put(long h, long l, long c, long when, long addr) {
        int existing = find(h, l);
        if (existing >= 0) {
            address[index[existing] - 1] = DEAD;   // a key recorded anew (after retention): the old entry is dead
            removeAt(existing);
        }
        while (count >= maxKeys) {
            popOldest();
        }
        if (count == high.length) {
            grow();
        }
        int slot = ring(count);
        high[slot] = h;
        low[slot] = l;
        content[slot] = c;
        at[slot] = when;
        address[slot] = addr;
        count++;
        int pos = home(h, l);
        while (index[pos] != 0) {
            pos = (pos + 1) & mask;
        }
        index[pos] = slot + 1;
    }

    private void expire(long now) {
        while (count > 0 && now - at[head] >= retentionMillis) {
            popOldest();
        }
    }

    private void popOldest() {
        int slot = head;
        if (address[slot] != DEAD) {
            removeAt(find(high[slot], low[slot]));
        }
        head = (head + 1) % high.length;
        count--;
    }

    private int find(long h, long l) {
        int pos = home(h, l);
        while (index[pos] != 0) {
            int slot = index[pos] - 1;
            if (high[slot] == h && low[slot] == l) {
                return pos;
            }
            pos = (pos + 1) & mask;
        }
        return -1;
    }

    /** Removes index position {@code pos}, shifting later members of its probe run back (no tombstones). */
    private void removeAt(int pos) {
        int i = pos;
        int j = pos;
        while (true) {
            j = (j + 1) & mask;
            if (index[j] == 0) {
                break;
            }
            int slot = index[j] - 1;
            int k = home(high[slot], low[slot]);
            boolean between = i <= j ? i < k && k <= j : i < k || k <= j;
            if (!between) {
                index[i] = index[j];
                i = j;
            }
        }
        index[i] = 0;
    }

    private int home(long h, long l) {
        long x = h * 0x9E3779B97F4A7C15L ^ l;
        return (int) (x ^ (x >>> 32)) & mask;
    }

    private int ring(int i) {
        return (head + i) % high.length;
    }

    private void grow() {
        int cap = (int) Math.min((long) high.length * 2, maxKeys);
        long[][] old = {high, low, content, at, address};
        int oldHead = head;
        int oldCap = high.length;
        allocate(cap);
        long[][] now = {high, low, content, at, address};
        for (int a = 0; a < old.length; a++) {
            for (int i = 0; i < count; i++) {
                now[a][i] = old[a][(oldHead + i) % oldCap];
            }
        }
        head = 0;
        for (int i = 0; i < count; i++) {
            if (address[i] != DEAD) {
                int pos = home(high[i], low[i]);
                while (index[pos] != 0) {
                    pos = (pos + 1) & mask;
                }
                index[pos] = i + 1;
            }
        }
    }

    private void allocate(int cap) {
        high = new long[cap];
        low = new long[cap];
        content = new long[cap];
        at = new long[cap];
        address = new long[cap];
        int size = Integer.highestOneBit(Math.max(2, cap) * 2 - 1) * 2;   // a power of two, at least twice cap
        index = new int[size];
        mask = size - 1;
        head = 0;
    }

    private static long prefix(byte[] digest) {
        return ByteBuffer.wrap(digest).getLong(0);
    }
}
