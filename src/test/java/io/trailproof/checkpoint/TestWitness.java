package io.trailproof.checkpoint;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.trailproof.core.merkle.MerkleProofs;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.note.Ed25519;
import io.trailproof.core.note.NoteSignature;
import io.trailproof.core.note.NoteVerification;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.SignedNote;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.note.TlogCosignature;
import io.trailproof.core.note.TlogRejection;
import io.trailproof.core.note.TlogWitness;
import io.trailproof.core.note.VerifierKey;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small witness that follows c2sp.org/tlog-witness for one log: it persists the latest cosigned
 * size and root (a file), answers 404 for an unknown origin, 403 without the log's signature, 400 when
 * {@code old} exceeds the size, 409 with {@code text/x.tlog.size} when {@code old} is not its size or
 * the same size has another root, 422 when the consistency proof fails, and otherwise cosigns
 * (cosignature v1, timestamped) after persisting. Public for the cluster tests (ClusterIT).
 */
public final class TestWitness implements AutoCloseable {
    public static final String NAME = "witness.test/w1";
    static final byte[] SEED = new byte[32];

    static {
        SEED[0] = 42;
    }

    private final NoteVerifier log;
    private final Path state;
    private final HttpServer server;
    public final AtomicInteger requests = new AtomicInteger();

    public TestWitness(String logVkey, Path state, int port) throws Exception {
        this.log = VerifierKey.parse(logVkey);
        this.state = state;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext("/add-checkpoint", this::handle);
        server.start();
    }

    public static String vkey() {
        return VerifierKey.format(NAME, TlogCosignature.TYPE_ED25519_V1, Ed25519.publicKey(SEED));
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/add-checkpoint";
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** Sets the stored state, e.g. to another root (a split view). */
    void store(long size, byte[] root) throws IOException {
        Files.writeString(state, size + " " + Base64.getEncoder().encodeToString(root));
    }

    private synchronized void handle(HttpExchange ex) throws IOException {
        requests.incrementAndGet();
        try (ex) {
            TlogWitness req;
            TlogCheckpoint cp;
            try {
                req = TlogWitness.parse(ex.getRequestBody().readAllBytes());
                SignedNote note = SignedNote.parse(req.checkpoint().getBytes(StandardCharsets.UTF_8));
                cp = TlogCheckpoint.parse(note.text());
                if (!cp.origin().equals(log.name())) {
                    answer(ex, 404, "text/plain", "unknown origin\n");
                    return;
                }
                try {
                    NoteVerification.open(note, List.of(log));
                } catch (TlogRejection e) {
                    answer(ex, 403, "text/plain", "no trusted signature\n");
                    return;
                }
            } catch (TlogRejection e) {
                answer(ex, 400, "text/plain", e.getMessage() + "\n");
                return;
            }
            if (req.oldSize() > cp.size()) {
                answer(ex, 400, "text/plain", "old size beyond the checkpoint\n");
                return;
            }
            long size = 0;
            byte[] root = Rfc9162.emptyRoot();
            if (Files.exists(state)) {
                String[] parts = Files.readString(state).split(" ");
                size = Long.parseLong(parts[0]);
                root = Base64.getDecoder().decode(parts[1]);
            }
            if (req.oldSize() != size) {
                answer(ex, 409, TlogWitness.SIZE_CONTENT_TYPE, size + "\n");
                return;
            }
            if (size == cp.size() && !Arrays.equals(root, cp.root())) {
                answer(ex, 409, TlogWitness.SIZE_CONTENT_TYPE, size + "\n");
                return;
            }
            if (size > 0 && size < cp.size()
                    && !MerkleProofs.verifyConsistency(size, cp.size(), root, cp.root(), req.proof())) {
                answer(ex, 422, "text/plain", "consistency proof does not verify\n");
                return;
            }
            store(cp.size(), cp.root());
            NoteSignature cosig = TlogCosignature.sign(NAME, SEED, System.currentTimeMillis() / 1000, cp.text());
            answer(ex, 200, "text/plain; charset=utf-8", cosig.line());
        }
    }

    private static void answer(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
