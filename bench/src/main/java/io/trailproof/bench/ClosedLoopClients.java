package io.trailproof.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ingest scenarios' load: a number of clients, each on its own keep-alive connection, sending
 * one request after another (closed loop) until the requests asked for have all been sent. The
 * request itself (its body, headers and the answer it must get) is the scenario's.
 */
final class ClosedLoopClients {

    /** Sends one request on {@code http} and checks its answer, throwing when it is not the expected one. */
    @FunctionalInterface
    interface Request {
        void send(PlainHttp http) throws Exception;
    }

    private ClosedLoopClients() {
    }

    /** Sends {@code requests} requests from {@code clients} clients; returns when all were answered. */
    static void run(int port, int clients, long requests, Request request) throws Exception {
        AtomicLong left = new AtomicLong(requests);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                fs.add(pool.submit(() -> {
                    try (PlainHttp http = new PlainHttp(port)) {
                        while (left.getAndDecrement() > 0) {
                            request.send(http);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    /**
     * The batch ingest scenario: {@code clients} clients posting batches of {@code batch} sample
     * events (numbered from {@code next}, 100 agents) to {@code /v1/batch}, each answered 201, until
     * about {@code events} were sent; returns how many were.
     */
    static long ingestBatches(int port, int clients, long events, int batch, AtomicLong next) throws Exception {
        long batches = Math.max(1, events / batch);
        run(port, clients, batches, http -> {
            long first = next.getAndAdd(batch);
            StringBuilder b = new StringBuilder(batch * 560).append('[');
            for (int i = 0; i < batch; i++) {
                b.append(i == 0 ? "" : ",").append(SampleEvents.event(first + i, "agent-" + ((first + i) % 100)));
            }
            PlainHttp.Response r = http.post("/v1/batch", b.append(']').toString().getBytes(StandardCharsets.UTF_8), "");
            if (r.status() != 201) {
                throw new IllegalStateException("batch answered " + r.status() + ": " + r.text());
            }
        });
        return batches * batch;
    }
}
