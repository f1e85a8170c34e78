package io.trailproof.http;

import io.trailproof.ledger.Ledger;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HttpString;

import java.time.Duration;
import java.util.Deque;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Read-after-write across nodes: a read with {@code min_tree_size=n} (or the header
 * {@code X-Min-Tree-Size: n}) is served once this node's tree has at least n events, waiting at
 * most {@code cluster.read-wait}; then 503 with {@code Retry-After} and this node's size. The
 * parameter is taken off the request before the endpoint sees it, so every read accepts it. In the
 * embedded mode it works the same (the wait ends at once, or when the size cannot come).
 *
 * <p>No thread waits: a waiting request is parked here and resumed by the ledger's size listener
 * or by its timeout.
 */
final class MinTreeSize {

    static final String PARAMETER = "min_tree_size";
    static final HttpString HEADER = new HttpString("X-Min-Tree-Size");

    private final Ledger ledger;
    private final Duration wait;
    private final PriorityQueue<Waiter> waiting = new PriorityQueue<>((a, b) -> Long.compare(a.size, b.size));

    private record Waiter(long size, CompletableFuture<Boolean> reached) {
    }

    MinTreeSize(Ledger ledger, Duration wait) {
        this.ledger = ledger;
        this.wait = wait;
        ledger.onSizeAdvanced(this::sizeAdvanced);
    }

    /**
     * The size the request asks for (taken off its query), or -1 when it asks for none.
     *
     * @throws ApiException 400 when it is not a whole number
     */
    long asked(HttpServerExchange ex) throws ApiException {
        Deque<String> values = ex.getQueryParameters().remove(PARAMETER);
        String value = values == null || values.isEmpty() ? ex.getRequestHeaders().getFirst(HEADER) : values.getFirst();
        if (value == null) {
            return -1;
        }
        try {
            long n = Long.parseLong(value.trim());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw ApiException.badRequest("min_tree_size (or X-Min-Tree-Size) must be a whole number of events, "
                + "such as the X-Tree-Size of a write");
    }

    /** Completes with true once the tree has {@code size} events, false after the wait. */
    CompletableFuture<Boolean> await(long size) {
        if (ledger.size() >= size) {
            return CompletableFuture.completedFuture(true);
        }
        Waiter w = new Waiter(size, new CompletableFuture<>());
        synchronized (waiting) {
            waiting.add(w);
        }
        sizeAdvanced();   // it may have grown while we were adding
        CompletableFuture.delayedExecutor(wait.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
            synchronized (waiting) {
                waiting.remove(w);
            }
            w.reached().complete(ledger.size() >= size);
        });
        return w.reached();
    }

    ApiException notReached(long size) {
        return new ApiException(503, "this node has applied " + ledger.size() + " events, fewer than the "
                + size + " asked by min_tree_size, after waiting " + wait + "; retry, or ask another node",
                Map.of("Retry-After", "1"));
    }

    private void sizeAdvanced() {
        long now = ledger.size();
        while (true) {
            Waiter w;
            synchronized (waiting) {
                Waiter first = waiting.peek();
                if (first == null || first.size() > now) {
                    return;
                }
                w = waiting.poll();
            }
            w.reached().complete(true);
        }
    }
}
