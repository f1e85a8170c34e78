package io.trailproof.checkpoint;

import io.trailproof.core.note.Ed25519NoteVerifier;
import io.trailproof.core.note.NoteSignature;
import io.trailproof.core.note.NoteSigner;
import io.trailproof.core.note.SignedNote;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.note.TlogRejection;
import java.io.IOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Signs the log's checkpoints (src/site/checkpoints.md) and keeps the latest one with its cosignatures.
 *
 * <p><b>Never two inconsistent checkpoints.</b> The last signed size and root are on disk
 * ({@link CheckpointFile}) before a checkpoint is published. Before each signature the tree must
 * still be at least that size and give that root there; if it ever does not (a log restored from an
 * older backup, truncated, or rewritten), signing stops for good, the reason is logged and reported
 * by {@link #problems()} (so on {@code /health}), and the last good checkpoint stays served. Only an
 * operator can resume, by starting a new log identity (src/site/checkpoints.md#identity-and-keys).
 *
 * <p>Thread-safety: {@link #signIfGrown} and {@link #addCosignature} are serialised; readers take the
 * latest checkpoint without a lock.
 */
public final class CheckpointService {
    private static final System.Logger LOG = System.getLogger(CheckpointService.class.getName());

    /** Where the last signed checkpoint is kept, relative to the data directory. */
    public static final String STATE_FILE = CheckpointFile.NAME;

    private final NoteSigner signer;
    private final LogTree tree;
    private final CheckpointFile file;
    private final List<Consumer<SignedCheckpoint>> listeners = new CopyOnWriteArrayList<>();
    private final List<Supplier<Optional<String>>> problemSources = new CopyOnWriteArrayList<>();
    private volatile SignedCheckpoint latest;
    // The latest checkpoint that carries at least one cosignature (it may be older than `latest`).
    private volatile SignedCheckpoint latestCosigned;
    private volatile String refusal;

    private CheckpointService(NoteSigner signer, LogTree tree, CheckpointFile file) {
        this.signer = signer;
        this.tree = tree;
        this.file = file;
    }

    /** Reads the last signed checkpoint of {@code dataDir} and checks the tree still agrees with it. */
    public static CheckpointService open(Path dataDir, NoteSigner signer, LogTree tree) throws IOException {
        CheckpointService s = new CheckpointService(signer, tree, new CheckpointFile(dataDir));
        try {
            s.latest = s.file.read(signer.verifier()).orElse(null);
        } catch (TlogRejection e) {
            s.refuse("the stored checkpoint " + s.file.path() + " is not one this log's key signed (" + e.getMessage()
                    + "); it may have been damaged or replaced");
            return s;
        }
        if (s.latest != null && !s.latest.checkpoint().origin().equals(signer.name())) {
            s.refuse("the stored checkpoint is of origin " + s.latest.checkpoint().origin() + ", not " + signer.name());
        } else if (s.latest != null) {
            // At once when the tree can be read; after a start, once its check is done, so the
            // start does not wait for it (not on the check's own thread, which readers wait on).
            // Signing checks again before each signature.
            SignedCheckpoint latest = s.latest;
            CompletableFuture<Void> readable = tree.whenReadable();
            Runnable check = () -> {
                synchronized (s) {
                    s.checkAgainstTree(latest);
                }
            };
            if (readable.isDone()) {
                check.run();
            } else {
                readable.thenRunAsync(check);
            }
        }
        return s;
    }

    /** Registers a consumer of each newly signed checkpoint (the witness client); it must not block. */
    public void onSigned(Consumer<SignedCheckpoint> listener) {
        listeners.add(listener);
    }

    /**
     * Signs the tree at its current durable size when that is larger than the last signed size (or
     * when nothing was signed yet, the empty tree included), persists the checkpoint and publishes it.
     *
     * @return the new checkpoint; empty when the tree has not grown or signing is refused
     */
    public Optional<SignedCheckpoint> signIfGrown() throws IOException {
        SignedCheckpoint signed;
        synchronized (this) {
            if (refusal != null) {
                return Optional.empty();
            }
            long size = tree.size();
            SignedCheckpoint last = latest;
            if (last != null && (!checkAgainstTree(last) || size == last.size())) {
                return Optional.empty();
            }
            TlogCheckpoint cp = TlogCheckpoint.of(signer.name(), size, tree.root(size));
            signed = new SignedCheckpoint(cp, signer.sign(new SignedNote(cp.text(), List.of())));
            file.write(signed);
            latest = signed;
        }
        for (Consumer<SignedCheckpoint> l : listeners) {
            try {
                l.accept(signed);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "a checkpoint listener failed: " + e);
            }
        }
        return Optional.of(signed);
    }

    /**
     * Adds a verified cosignature to the checkpoint of {@code size} if it is still the latest, and
     * persists it so it is served after a restart too. The caller has verified it with the witness key.
     */
    public synchronized boolean addCosignature(long size, NoteSignature cosignature) throws IOException {
        SignedCheckpoint last = latest;
        if (last == null || last.size() != size) {
            return false;
        }
        SignedCheckpoint with = last.withCosignature(cosignature);
        file.write(with);
        latest = with;
        latestCosigned = with;
        return true;
    }

    /**
     * Keeps a cosignature that another node of the cluster got from a witness for {@code cosigned} (a
     * checkpoint of this origin whose root the caller checked against this tree, and whose cosignature
     * the caller verified with the witness's key), with this node's own checkpoint of that size:
     * <ul>
     *   <li>past the latest signed size: that size is signed now, as the new latest, with the cosignature;</li>
     *   <li>at the latest size: added to it, as {@link #addCosignature} does;</li>
     *   <li>below it: this node signed past it already; the cosigned checkpoint is kept (in memory) as
     *       {@link #latestCosigned()}, as when a witness answers late, and the next cosignature the
     *       cluster gets is of a later size.</li>
     * </ul>
     * A cosignature by the same key replaces the one kept, so applying it twice keeps it once.
     *
     * @return false when nothing was kept (signing refused, another origin, or the tree does not hold
     *     that size and root)
     */
    public boolean adoptCosignature(TlogCheckpoint cosigned, NoteSignature cosignature) throws IOException {
        synchronized (this) {
            if (refusal != null || !cosigned.origin().equals(signer.name()) || cosigned.size() > tree.size()
                    || !MessageDigest.isEqual(tree.root(cosigned.size()), cosigned.root())) {
                return false;
            }
            TlogCheckpoint cp = TlogCheckpoint.of(signer.name(), cosigned.size(), cosigned.root());
            if (!cp.text().equals(cosigned.text())) {
                return false;   // extension lines: not a checkpoint this log signs, the cosignature is not over ours
            }
            SignedCheckpoint last = latest;
            if (last != null && !checkAgainstTree(last)) {
                return false;
            }
            if (last != null && last.size() == cosigned.size()) {
                return addCosignature(cosigned.size(), cosignature);
            }
            SignedCheckpoint with = new SignedCheckpoint(cp, signer.sign(new SignedNote(cp.text(), List.of())))
                    .withCosignature(cosignature);
            if (last == null || last.size() < cosigned.size()) {
                file.write(with);
                latest = with;
                latestCosigned = with;
            } else {
                SignedCheckpoint kept = latestCosigned;
                if (kept == null || kept.size() <= cosigned.size()) {
                    latestCosigned = kept != null && kept.size() == cosigned.size()
                            ? kept.withCosignature(cosignature) : with;
                }
            }
            return true;
        }
    }

    /**
     * A checkpoint note for exactly {@code size} (an evidence package's tree), with its cosignatures
     * when it is the latest one. A size past the latest checkpoint is first signed as the new latest
     * (so the persisted state stays the largest size signed); an earlier size is signed as it is, a
     * prefix of the same history and so consistent with every checkpoint signed. Empty while signing
     * is refused or when the tree does not reach {@code size}.
     */
    public Optional<String> noteFor(long size) {
        try {
            SignedCheckpoint last = latest;
            if (last == null || last.size() < size) {
                signIfGrown();
                last = latest;
            }
            if (refusal != null || last == null || size > last.size() || size > tree.size()) {
                return Optional.empty();
            }
            if (last.size() == size) {
                return Optional.of(last.text());
            }
            TlogCheckpoint cp = TlogCheckpoint.of(signer.name(), size, tree.root(size));
            return Optional.of(signer.sign(new SignedNote(cp.text(), List.of())).format());
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "no checkpoint for tree size " + size + ": " + e);
            return Optional.empty();
        }
    }

    /** The latest signed checkpoint, with the cosignatures gathered so far. */
    public Optional<SignedCheckpoint> latest() {
        return Optional.ofNullable(latest);
    }

    /** The latest checkpoint with at least one witness cosignature, since this start or as stored. */
    public Optional<SignedCheckpoint> latestCosigned() {
        SignedCheckpoint c = latestCosigned;
        if (c == null) {
            SignedCheckpoint l = latest;
            return l != null && !l.cosignatures().isEmpty() ? Optional.of(l) : Optional.empty();
        }
        return Optional.of(c);
    }

    /** The origin, which is also the signing key's name. */
    public String origin() {
        return signer.name();
    }

    /** The public key that verifies this log's checkpoints. */
    public Ed25519NoteVerifier verifier() {
        return signer.verifier();
    }

    /** Why signing stopped; empty while the log signs. */
    public Optional<String> refusal() {
        return Optional.ofNullable(refusal);
    }

    /** Adds a source of {@code /health} sentences (a witness client's failure or alarm). */
    public void addProblemSource(Supplier<Optional<String>> source) {
        problemSources.add(source);
    }

    /** Sentences for {@code /health}: why signing stopped, if it did, and what is wrong with witnesses. */
    public List<String> problems() {
        List<String> out = new ArrayList<>();
        String r = refusal;
        if (r != null) {
            out.add("checkpoint signing stopped: " + r);
        }
        problemSources.forEach(s -> s.get().ifPresent(out::add));
        return out;
    }

    // True when the tree still has `last`'s size and root; otherwise stops signing and says why.
    private boolean checkAgainstTree(SignedCheckpoint last) {
        long size = tree.size();
        if (size < last.size()) {
            refuse("the log holds " + size + " events but checkpoint " + last.size() + " was signed: the log lost events "
                    + "that a signed checkpoint covers");
            return false;
        }
        byte[] root = tree.root(last.size());
        if (!MessageDigest.isEqual(root, last.checkpoint().root())) {
            refuse("the log's root at size " + last.size() + " is " + HexFormat.of().formatHex(root) + " but the signed "
                    + "checkpoint says " + HexFormat.of().formatHex(last.checkpoint().root())
                    + ": the log's history changed after it was signed");
            return false;
        }
        return true;
    }

    private void refuse(String why) {
        if (refusal == null) {
            refusal = why;
            LOG.log(System.Logger.Level.ERROR, "refusing to sign checkpoints: " + why);
        }
    }
}
