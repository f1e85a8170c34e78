package io.trailproof.checkpoint;

import io.trailproof.core.note.NoteSignature;
import io.trailproof.core.note.NoteVerification;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.SignedNote;
import io.trailproof.core.note.TlogRejection;
import io.trailproof.core.note.TlogWitness;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import io.trailproof.core.note.VerifierKey;
import io.trailproof.store.AtomicFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The tlog-witness {@code add-checkpoint} client for one witness (src/site/checkpoints.md).
 *
 * <p>Each newly signed checkpoint is sent with the size this witness last cosigned ({@code old}, 0
 * until known) and the consistency proof from it. A 409 with {@code text/x.tlog.size} names the
 * witness's size and the request is retried from it. A 200's signature lines are verified with the
 * witness's key before the cosignature is kept and served. Any other failure (the witness down, a
 * 5xx, a 403) is retried with back-off from {@link #FIRST_RETRY} doubling to {@link #MAX_RETRY},
 * always with the latest checkpoint, and never stops the log.
 *
 * <p><b>Split view.</b> A witness that holds a checkpoint our tree contradicts (a 422 for our
 * consistency proof, a 409 at the same size, or a size larger than anything this log signed) has seen
 * another history of this log: the client logs an alarm, reports it on {@code /health} and stops
 * sending to that witness for good; it never retries its way past that evidence. The alarm is kept in
 * {@code DIR/tlog/witness-alarms/<name>+<key id>} and read at the next start, so a restart does not
 * clear it either: only an operator who has looked at it does, by deleting that file.
 *
 * <p><b>In a cluster</b> ({@link #joinCluster}) the client asks only while {@link #resume resumed}
 * (on the node that runs the cluster's scheduled work), hands each verified cosignature to the
 * cluster (which replicates it to every node) instead of keeping it itself, and takes a witness size
 * past this node's latest checkpoint for what it is there: another node of the same log signed it, and
 * this node asks again once it has signed past it (a contradicting root still shows as a 422 then).
 *
 * <p>One thread per witness; state is confined to it except the volatile fields read by {@link #problem()}.
 */
public final class WitnessClient implements AutoCloseable {
    static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    static final Duration MAX_RETRY = Duration.ofMinutes(5);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    // 409s in a row followed within one attempt: the witness's size can move while we ask.
    private static final int MAX_CONFLICTS = 3;
    private static final System.Logger LOG = System.getLogger(WitnessClient.class.getName());

    private final NoteVerifier witness;
    private final URI url;
    private final CheckpointService checkpoints;
    private final LogTree tree;
    private final Clock clock;
    private final HttpClient http;
    private final ScheduledExecutorService executor;
    private long oldSize;
    private int failures;
    private boolean scheduled;
    private volatile String failing;
    private volatile Instant failingSince;
    private volatile String alarm;

    /** The directory of persisted split-view alarms, under the data directory. */
    public static final String ALARMS_DIR = "tlog/witness-alarms";

    private final Path alarmFile;

    private volatile Consumer<Boolean> outcomes = ok -> { };
    private volatile CosignatureSink sink;
    private volatile boolean active = true;
    private volatile boolean otherNodesSign;
    private ScheduledFuture<?> retry;

    /** Where a verified cosignature goes. */
    @FunctionalInterface
    public interface CosignatureSink {
        /** Keeps {@code cosignature} of {@code checkpoint}, verified with the witness's key; durable on return. */
        void keep(SignedCheckpoint checkpoint, NoteSignature cosignature) throws IOException;
    }

    public WitnessClient(NoteVerifier witness, URI url, CheckpointService checkpoints, LogTree tree, Clock clock,
                         Path dataDir) throws IOException {
        this.alarmFile = dataDir.resolve(ALARMS_DIR).resolve(witness.name().replace('/', '_') + "+"
                + VerifierKey.keyIdHex(witness.keyId()));
        if (Files.exists(alarmFile)) {
            this.alarm = Files.readString(alarmFile, StandardCharsets.UTF_8).strip() + " (alarm kept in " + alarmFile
                    + "; delete it to send to this witness again)";
        }
        this.witness = witness;
        this.url = url;
        this.checkpoints = checkpoints;
        this.sink = (cp, sig) -> checkpoints.addCosignature(cp.size(), sig);
        this.tree = tree;
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "trailproof-witness-" + witness.name());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Registers what is told each request's outcome (metrics): true when the witness cosigned, false
     * when it failed or showed a split view. It runs on this client's thread and must return at once.
     */
    public void onOutcome(Consumer<Boolean> listener) {
        this.outcomes = listener;
    }

    /**
     * Makes this client one node's of a cluster: paused until {@link #resume}, cosignatures handed to
     * {@code sink} (the cluster, which keeps them on every node), and a witness size past this node's
     * checkpoints not taken for a split view (another node of the log signed it). Call before start.
     */
    public void joinCluster(CosignatureSink sink) {
        this.sink = sink;
        this.otherNodesSign = true;
        this.active = false;
    }

    /** Starts asking (this node now runs the cluster's scheduled work): the latest checkpoint at once. */
    public void resume() {
        active = true;
        checkpointSigned();
    }

    /**
     * Stops asking (another node runs the cluster's scheduled work): a pending retry is dropped and a
     * failure is no longer reported (it is the running node's to report). A split-view alarm stays.
     */
    public void pause() {
        active = false;
        try {
            executor.execute(() -> {
                if (retry != null) {
                    retry.cancel(false);
                    retry = null;
                }
                scheduled = false;
                failures = 0;
                failing = null;
            });
        } catch (RejectedExecutionException e) {
            // closed
        }
    }

    /** The witness's name (its key name), for metrics labels. */
    public String name() {
        return witness.name();
    }

    /** Asks for a cosignature of the latest checkpoint soon (at once unless backing off). */
    public void checkpointSigned() {
        try {
            executor.execute(() -> {
                if (!scheduled) {
                    scheduled = true;
                    executor.execute(this::attempt);
                }
            });
        } catch (RejectedExecutionException e) {
            // closed: the service is stopping
        }
    }

    /** A sentence for {@code /health} while the witness fails or after it showed a split view; empty otherwise. */
    public Optional<String> problem() {
        if (alarm != null) {
            return Optional.of("SPLIT VIEW: witness " + witness.name() + " (" + url + ") " + alarm
                    + "; no longer sending it checkpoints");
        }
        String f = failing;
        return f == null ? Optional.empty() : Optional.of("witness " + witness.name() + " (" + url + ") failing since "
                + failingSince + ": " + f + "; retrying with back-off");
    }

    private void attempt() {
        scheduled = false;
        retry = null;
        Optional<SignedCheckpoint> latest = checkpoints.latest();
        if (!active || alarm != null || latest.isEmpty()) {
            return;
        }
        try {
            send(latest.get());
            failures = 0;
            failing = null;
            outcomes.accept(true);
        } catch (Behind e) {
            // not a failure: another node of the cluster signed further; this node signs past it soon
            LOG.log(System.Logger.Level.INFO, "witness " + witness.name() + " " + e.getMessage());
            scheduled = true;
            retry = executor.schedule(this::attempt, FIRST_RETRY.toMillis(), TimeUnit.MILLISECONDS);
        } catch (SplitView e) {
            outcomes.accept(false);
            alarm = e.getMessage();
            try {
                AtomicFile.write(alarmFile, (clock.instant() + " " + e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (IOException io) {
                LOG.log(System.Logger.Level.ERROR, "cannot keep the split-view alarm in " + alarmFile + ": " + io);
            }
            LOG.log(System.Logger.Level.ERROR, "ALARM: witness " + witness.name() + " at " + url + " " + e.getMessage()
                    + ": it has seen a history of this log that contradicts ours (a split view); "
                    + "no longer sending it checkpoints");
        } catch (IOException | TlogRejection | RuntimeException e) {
            outcomes.accept(false);
            failures++;
            if (failing == null) {
                failingSince = clock.instant();
            }
            failing = e.getMessage() == null ? e.toString() : e.getMessage();
            Duration next = backoff(failures);
            LOG.log(System.Logger.Level.WARNING, "witness " + witness.name() + " failed (" + failing + "); retrying in "
                    + next);
            scheduled = true;
            retry = executor.schedule(this::attempt, next.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void send(SignedCheckpoint cp) throws IOException, InterruptedException, TlogRejection, SplitView, Behind {
        // Only the log's own signature goes to the witness: cosignatures are not its business.
        SignedNote logOnly = new SignedNote(cp.note().text(), cp.note().signatures().subList(0, 1));
        for (int conflicts = 0; conflicts <= MAX_CONFLICTS; conflicts++) {
            if (oldSize > cp.size() && otherNodesSign) {
                throw new Behind("holds size " + oldSize + ", signed by another node of the cluster, past this node's "
                        + "latest checkpoint (" + cp.size() + "); asking again once this node signed past it");
            }
            if (oldSize > cp.size()) {
                throw new SplitView("cosigned size " + oldSize + ", larger than any checkpoint this log signed ("
                        + cp.size() + ")");
            }
            List<byte[]> proof = oldSize == 0 || oldSize == cp.size() ? List.of() : tree.consistencyProof(oldSize, cp.size());
            String body = new TlogWitness(oldSize, proof, logOnly.format()).format();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(url).timeout(TIMEOUT)
                    .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            switch (r.statusCode()) {
                case 200 -> {
                    keep(cp, r.body());
                    oldSize = cp.size();
                    return;
                }
                case TlogWitness.CONFLICT -> {
                    long theirs = conflictSize(r);
                    if (theirs == oldSize && oldSize == cp.size()) {
                        throw new SplitView("holds another root for tree size " + theirs);
                    }
                    if (theirs == oldSize) {
                        throw new IOException("answered 409 naming the size we sent (" + theirs + ")");
                    }
                    oldSize = theirs;
                }
                case TlogWitness.UNPROCESSABLE -> throw new SplitView(
                        "refused our consistency proof from size " + oldSize + " to " + cp.size() + " (422)");
                default -> throw new IOException("answered HTTP " + r.statusCode());
            }
        }
        throw new IOException("the witness's size kept changing (" + MAX_CONFLICTS + " conflicts in a row)");
    }

    private long conflictSize(HttpResponse<String> r) throws IOException {
        String type = r.headers().firstValue("Content-Type").orElse("");
        long size = TlogWitness.parseSizeAnswer(r.body());
        if (!type.startsWith(TlogWitness.SIZE_CONTENT_TYPE) || size < 0) {
            throw new IOException("answered 409 without a " + TlogWitness.SIZE_CONTENT_TYPE + " size");
        }
        return size;
    }

    // Keeps only signature lines by this witness's key that verify over our checkpoint.
    private void keep(SignedCheckpoint cp, String body) throws IOException, TlogRejection {
        List<NoteSignature> lines = TlogWitness.parseCosignatures(body);
        NoteVerification.Opened opened = NoteVerification.open(new SignedNote(cp.note().text(), lines), List.of(witness));
        for (NoteSignature sig : opened.verified()) {
            sink.keep(cp, sig);
        }
    }

    static Duration backoff(int failures) {
        int shift = Math.min(Math.max(failures - 1, 0), 20);
        Duration d = FIRST_RETRY.multipliedBy(1L << shift);
        return d.compareTo(MAX_RETRY) > 0 ? MAX_RETRY : d;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    private static final class Behind extends Exception {
        private static final long serialVersionUID = 1L;

        Behind(String message) {
            super(message);
        }
    }

    private static final class SplitView extends Exception {
        private static final long serialVersionUID = 1L;

        SplitView(String message) {
            super(message);
        }
    }
}
