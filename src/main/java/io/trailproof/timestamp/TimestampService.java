package io.trailproof.timestamp;

import io.trailproof.core.event.UuidV7;
import io.trailproof.core.timestamp.Rfc3161;
import io.trailproof.core.timestamp.TimestampCheck;
import io.trailproof.core.timestamp.TimestampFailure;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.core.timestamp.TimestampTokenVerifier;
import io.trailproof.core.timestamp.TimestampVerification;
import io.trailproof.core.timestamp.TsaAnswerRejected;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerUnavailableException;
import io.trailproof.ledger.RootRecomputation;
import io.trailproof.store.FilePrefix;
import org.bouncycastle.tsp.TimeStampRequest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Timestamps the Merkle root with an RFC 3161 TSA, stores the accepted tokens and verifies them
 * against the log (src/site/timestamps.md). A request either stores a record that passed every acceptance rule
 * of {@link Rfc3161#accept}, durably, or stores nothing and says why.
 */
public final class TimestampService {

    private static final HexFormat HEX = HexFormat.of();

    private final Ledger ledger;
    private final TimestampStore store;
    private final TsaClient client;
    private final TsaUrlPolicy policy;
    private final URI defaultTsa;
    private final Supplier<List<X509Certificate>> anchors;
    private final Clock clock;
    private final RandomGenerator random;
    private volatile Consumer<Boolean> outcomes = ok -> { };
    private volatile Publisher publisher;

    /**
     * Where an accepted record goes: by default this node's store; in cluster mode the topic, which
     * every node's apply loop stores from.
     */
    @FunctionalInterface
    public interface Publisher {
        /**
         * Stores the record (or has it stored); durable on return.
         *
         * @throws LedgerUnavailableException when it cannot be stored, or its outcome is unknown
         */
        void publish(TimestampRecord record) throws IOException;
    }

    /**
     * @param anchors trust anchors for the certificate_chain check (the JDK trust store plus configured PEM
     *                files), asked for by each verification; it may throw {@link UncheckedIOException}
     * @param random  source of nonces and record ids; a {@link java.security.SecureRandom} in the service
     */
    public TimestampService(Ledger ledger, TimestampStore store, TsaClient client, TsaUrlPolicy policy, URI defaultTsa,
                            Supplier<List<X509Certificate>> anchors, Clock clock, RandomGenerator random) {
        this.ledger = ledger;
        this.store = store;
        this.client = client;
        this.policy = policy;
        this.defaultTsa = defaultTsa;
        this.anchors = anchors;
        this.clock = clock;
        this.random = random;
        this.publisher = store::append;
    }

    /** Sends accepted records through {@code publisher} instead of this node's store (cluster mode). */
    public void publishThrough(Publisher publisher) {
        this.publisher = publisher;
    }

    /**
     * Timestamps the current root with the named TSA (null: the configured default) and stores the
     * record; durable on return.
     *
     * @throws TimestampRefusal for a bad or disallowed URL, an empty log, or a TSA failure; nothing is stored
     * @throws LedgerUnavailableException when the record cannot be stored
     */
    public TimestampRecord stamp(String tsaUrl) throws TimestampRefusal, IOException {
        try {
            TimestampRecord record = stampOnce(tsaUrl);
            outcomes.accept(true);
            return record;
        } catch (TimestampRefusal e) {
            if (e.reason() == TimestampRefusal.Reason.TSA_FAILED) {
                outcomes.accept(false);
            }
            throw e;
        } catch (IOException | RuntimeException e) {
            outcomes.accept(false);
            throw e;
        }
    }

    /**
     * Registers what is told each timestamp's outcome (metrics): true when a record was stored, false
     * when the TSA failed or the record could not be stored (a bad URL or an empty log is the caller's
     * matter and is not told). It must return at once.
     */
    public void onOutcome(Consumer<Boolean> listener) {
        this.outcomes = listener;
    }

    private TimestampRecord stampOnce(String tsaUrl) throws TimestampRefusal, IOException {
        URI tsa = tsaUrl == null ? defaultTsa : policy.check(tsaUrl);
        long size = ledger.size();
        if (size == 0) {
            throw new TimestampRefusal(TimestampRefusal.Reason.EMPTY_LOG,
                    "the log is empty: there is no root to timestamp until an event is recorded");
        }
        byte[] root = ledger.root(size);
        byte[] nonce = new byte[Rfc3161.NONCE_BYTES];
        byte[] idRandom = new byte[UuidV7.RANDOM_BYTES];
        synchronized (random) {
            random.nextBytes(nonce);
            random.nextBytes(idRandom);
        }
        TimeStampRequest request = Rfc3161.request(root, nonce);
        Instant requestedAt = clock.instant();
        byte[] answer = client.exchange(tsa, request.getEncoded());
        Rfc3161.Accepted accepted;
        try {
            accepted = Rfc3161.accept(request, answer);
        } catch (TsaAnswerRejected e) {
            if (e.isNotAResponse()) {
                throw TsaClient.unreachable(tsa, e.getMessage()); // an open port that is no TSA reads as a closed one
            }
            throw new TimestampRefusal(TimestampRefusal.Reason.TSA_FAILED,
                    "the TSA at " + tsa.getHost() + " gave no usable timestamp: " + e.getMessage());
        }
        Base64.Encoder b64 = Base64.getEncoder();
        TimestampRecord record = new TimestampRecord(UuidV7.create(requestedAt.toEpochMilli(), idRandom),
                HEX.formatHex(root), size, tsa.getHost(), tsa.toString(), accepted.facts().genTime().toString(),
                requestedAt.toString(), accepted.facts().serialNumber(), accepted.facts().policy(),
                Rfc3161.HASH_ALGORITHM_NAME, accepted.facts().nonce(), b64.encodeToString(accepted.tokenDer()),
                accepted.certificates().stream().map(b64::encodeToString).toList());
        try {
            publisher.publish(record);
        } catch (LedgerUnavailableException e) {
            throw e;
        } catch (IOException e) {
            throw new LedgerUnavailableException("storing the timestamp record failed: " + e.getMessage(), e);
        }
        return record;
    }

    public long count() {
        return store.size();
    }

    public List<TimestampRecord> newestFirst(long offset, int limit) throws IOException {
        return store.newestFirst(offset, limit);
    }

    public Optional<TimestampRecord> latest() throws IOException {
        return store.latest();
    }

    /** Visits every record, oldest first, one at a time. */
    public void forEachOldestFirst(Consumer<TimestampRecord> visitor) throws IOException {
        store.forEachOldestFirst(visitor);
    }

    /** Verifies the latest timestamp against the current log; empty when nothing was ever timestamped. */
    /** The files of the records durable now, cut at a committed point, for an online backup (src/site/operations.md). */
    public List<FilePrefix> storeFiles() throws IOException {
        return store.committedFiles();
    }

    public Optional<LatestVerification> verifyLatest() throws IOException {
        Optional<TimestampRecord> latest = store.latest();
        return latest.isEmpty() ? Optional.empty() : Optional.of(verify(latest.get()));
    }

    /** Verifies the record with this id; empty when there is none. */
    public Optional<LatestVerification> verify(String id) throws IOException {
        TimestampRecord[] found = new TimestampRecord[1];
        store.forEachOldestFirst(r -> {
            if (r.id().equals(id)) {
                found[0] = r;
            }
        });
        return found[0] == null ? Optional.empty() : Optional.of(verify(found[0]));
    }

    /**
     * The four checks of src/site/timestamps.md#verification. {@code message_imprint} covers the whole path from the token to
     * the events: the token's imprint is the recorded root, the stored tree still has that root at the
     * stamped size, and the events themselves (every hash recomputed from its fields, O(n) reads) still
     * give that root. {@code consistency} proves the current tree extends the stamped one.
     */
    public LatestVerification verify(TimestampRecord record) throws IOException {
        long current = ledger.size();
        byte[] currentRoot = ledger.root(current);
        long stamped = record.treeSize();
        byte[] stampedRoot = record.merkleRootBytes();
        List<byte[]> proof = stamped <= current ? ledger.consistencyProof(stamped, current) : List.of();
        List<X509Certificate> trusted;
        try {
            trusted = anchors.get();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        TimestampVerification v = TimestampTokenVerifier.verifyRecord(record, trusted, current, currentRoot, proof);
        if (stamped > current) {
            v = v.withFailure(new TimestampFailure(TimestampCheck.MESSAGE_IMPRINT, "the log now holds " + current
                    + " events, fewer than the " + stamped + " that were stamped: events were removed",
                    String.valueOf(stamped), String.valueOf(current)));
        } else {
            byte[] treeRoot = ledger.root(stamped);
            if (!MessageDigest.isEqual(treeRoot, stampedRoot)) {
                v = v.withFailure(new TimestampFailure(TimestampCheck.MESSAGE_IMPRINT, "the stored tree's root at tree size "
                        + stamped + " is " + HEX.formatHex(treeRoot) + ", not the stamped root", record.merkleRoot(),
                        HEX.formatHex(treeRoot)));
            }
            RootRecomputation r = ledger.recomputeRoot(stamped);
            if (r.altered()) {
                v = v.withFailure(new TimestampFailure(TimestampCheck.MESSAGE_IMPRINT, "the event at log index "
                        + r.firstAlteredIndex() + (r.firstAlteredId() == null ? "" : " (id " + r.firstAlteredId() + ")")
                        + " was altered after it was stamped: " + r.problem(), record.merkleRoot(), HEX.formatHex(r.root())));
            } else if (!MessageDigest.isEqual(r.root(), stampedRoot)) {
                v = v.withFailure(new TimestampFailure(TimestampCheck.MESSAGE_IMPRINT, "the root recomputed from the events "
                        + "at tree size " + stamped + " is " + HEX.formatHex(r.root()) + ", not the stamped root",
                        record.merkleRoot(), HEX.formatHex(r.root())));
            }
        }
        return new LatestVerification(record, v, current, currentRoot);
    }
}
