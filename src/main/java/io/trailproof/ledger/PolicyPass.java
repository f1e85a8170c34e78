package io.trailproof.ledger;

import io.trailproof.core.policy.Policy;
import io.trailproof.core.policy.PolicyEngine;
import io.trailproof.core.policy.PolicyReport;
import io.trailproof.store.CorruptLogException;
import io.trailproof.store.EventLog;
import io.trailproof.store.MerkleNodeStore;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Feeds the readable log to a {@link PolicyEngine} in one sequential read (src/site/redaction.md), with the
 * tree's leaves read a window at a time for {@code chain_integrity}: memory is the engine's state,
 * a window of leaves and a bounded number of events in flight, whatever the length of the log.
 *
 * <p>Parsing and hash-checking each event is most of a check's cost and needs no rule state, so it
 * runs on a few threads, a batch of events at a time ({@link PolicyEngine#prepare}); the calling
 * thread reads the log and hands the prepared batches to the rules in log order.
 */
final class PolicyPass {

    /** Events parsed together on one thread. */
    static final int BATCH = 512;
    /** Batches read ahead of the rules at most: with events of about 1 KB, a few MB. */
    static final int IN_FLIGHT = 8;
    /** Below this many events the check runs on the calling thread alone: starting threads costs more. */
    static final long SMALL = 4 * BATCH;

    private PolicyPass() {
    }

    /** Checks the events below {@code size} (a readable size taken by the caller, also the tree's). */
    static PolicyReport run(EventLog log, MerkleNodeStore tree, long size, List<Policy> policies, String agentId,
                            Instant since, Instant until) throws IOException {
        PolicyEngine engine = new PolicyEngine(policies, agentId, since, until, new LeafWindow(tree, size));
        int threads = Math.min(2, Runtime.getRuntime().availableProcessors());
        if (size < SMALL || threads < 2) {
            scan(log, size, engine::accept, (position, why) -> engine.accept(new PolicyEngine.Prepared(position, null, null, why)));
            return engine.finish();
        }
        ExecutorService parsers = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "policy-check-parse");
            t.setDaemon(true);
            return t;
        });
        try {
            Pipeline p = new Pipeline(engine, parsers);
            scan(log, size, p::add, p::addUnreadable);
            p.submit();
            while (!p.inFlight.isEmpty()) {
                p.acceptOldest();
            }
        } finally {
            parsers.shutdownNow();
        }
        return engine.finish();
    }

    /** Receives an event the log cannot give back (its frame fails its check), in its place in log order. */
    @FunctionalInterface
    interface Unreadable {
        void at(long position, String why) throws IOException;
    }

    /**
     * Visits every event below {@code size} in log order. A frame that fails its check does not end
     * the pass: the event it stands for is handed to {@code unreadable} (the chain check reports it,
     * by log index) and the scan goes on after it, as {@code GET /v1/verify} would find the damage
     * and the rest of the log is still worth checking. The failure may be in a frame between two
     * events (a commit frame): the next event is then read by itself and, when it is fine, kept.
     */
    static void scan(EventLog log, long size, EventLog.PayloadVisitor visitor, Unreadable unreadable) throws IOException {
        long next = 0;
        while (next < size) {
            long[] visited = {next - 1};
            try {
                log.scan(next, size, (index, payload) -> {
                    visited[0] = index;
                    visitor.accept(index, payload);
                });
                return;
            } catch (CorruptLogException e) {
                long bad = visited[0] + 1;
                byte[] alone;
                try {
                    alone = log.read(bad);
                } catch (CorruptLogException again) {
                    alone = null;
                }
                if (alone != null) {
                    visitor.accept(bad, alone);
                } else {
                    unreadable.at(bad, e.getMessage());
                }
                next = bad + 1;
            }
        }
    }

    /** The batches being prepared, oldest first, and the batch being filled. */
    private static final class Pipeline {
        private final PolicyEngine engine;
        private final ExecutorService parsers;
        private final ArrayDeque<Future<PolicyEngine.Prepared[]>> inFlight = new ArrayDeque<>();
        private long[] positions = new long[BATCH];
        private byte[][] payloads = new byte[BATCH][];
        private int filled;

        Pipeline(PolicyEngine engine, ExecutorService parsers) {
            this.engine = engine;
            this.parsers = parsers;
        }

        void add(long position, byte[] payload) throws IOException {
            positions[filled] = position;
            payloads[filled] = payload;
            if (++filled == BATCH) {
                submit();
            }
            while (inFlight.size() >= IN_FLIGHT) {
                acceptOldest();
            }
        }

        void addUnreadable(long position, String why) throws IOException {
            submit();
            inFlight.add(CompletableFuture.completedFuture(
                    new PolicyEngine.Prepared[] {new PolicyEngine.Prepared(position, null, null, why)}));
            while (inFlight.size() >= IN_FLIGHT) {
                acceptOldest();
            }
        }

        void submit() {
            if (filled == 0) {
                return;
            }
            long[] pos = positions;
            byte[][] pay = payloads;
            int n = filled;
            inFlight.add(parsers.submit(() -> {
                PolicyEngine.Prepared[] out = new PolicyEngine.Prepared[n];
                for (int i = 0; i < n; i++) {
                    out[i] = engine.prepare(pos[i], pay[i]);
                }
                return out;
            }));
            positions = new long[BATCH];
            payloads = new byte[BATCH][];
            filled = 0;
        }

        void acceptOldest() throws IOException {
            PolicyEngine.Prepared[] batch;
            try {
                batch = inFlight.removeFirst().get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted during a policy check");
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                if (e.getCause() instanceof Error err) {
                    throw err;
                }
                throw new IOException(e.getCause());
            }
            for (PolicyEngine.Prepared prepared : batch) {
                engine.accept(prepared);
            }
        }
    }
}
