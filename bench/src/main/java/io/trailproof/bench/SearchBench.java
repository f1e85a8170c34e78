package io.trailproof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventValidator;
import io.trailproof.index.EventFilter;
import io.trailproof.index.IndexRequest;
import io.trailproof.index.SearchIndex;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Search benchmark: fills a temporary data directory with N events (default 1,000,000)
 * through the ledger, then measures how fast the search index is built from the log, and the latency
 * (p50, p99) of a selective and a broad search and of a filtered listing, each reading the events of
 * the page back from the log as the API does.
 *
 * <p>Usage: {@code SearchBench [--events N] [--queries Q]}.
 */
public final class SearchBench {

    private static final String[] WORDS = {"revenue", "forecast", "customer", "invoice", "refund", "database", "search",
            "report", "quarterly", "email", "schedule", "meeting", "contract", "payment", "error", "timeout"};
    private static final String[] TYPES = {"TOOL_CALL", "LLM_CALL", "TOOL_RESULT", "HUMAN_INPUT"};

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parseOptions(args, "--events", "--queries");
        int events = a.intOption("--events", 1_000_000);
        int queries = a.intOption("--queries", 300);
        Path data = Files.createTempDirectory("trailproof-search-bench");
        System.out.printf("search bench: %,d events in %s (%d cores, Java %s, max heap %d MiB)%n", events, data,
                Runtime.getRuntime().availableProcessors(), Runtime.version(), Runtime.getRuntime().maxMemory() >> 20);
        ObjectMapper json = new ObjectMapper();
        Random rnd = new Random(42);
        try (Ledger ledger = Ledger.open(data, LedgerOptions.defaults(), Clock.systemUTC(), new SecureRandom())) {
            long t0 = System.nanoTime();
            for (int done = 0; done < events; ) {
                int n = Math.min(1000, events - done);
                List<ObjectNode> batch = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    int k = done + i;
                    ObjectNode e = json.createObjectNode()
                            .put("agent_id", "agent-" + (k % 1000))
                            .put("action_type", TYPES[k % TYPES.length])
                            .put("action_name", WORDS[rnd.nextInt(WORDS.length)] + "_" + WORDS[rnd.nextInt(WORDS.length)])
                            .put("duration_ms", rnd.nextInt(5000));
                    e.putObject("action_input").put("q", sentence(rnd, 8) + " ref-" + k);
                    e.putObject("labels").put("env", k % 10 == 0 ? "dev" : "prod").put("shard", "s" + (k % 16));
                    if (k % 50 == 0) {
                        e.put("error_message", "upstream " + WORDS[rnd.nextInt(WORDS.length)] + " failed: timeout");
                    }
                    batch.add(EventValidator.validate(e));
                }
                ledger.append(batch);
                done += n;
            }
            double appendSeconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf("log filled: %,d events in %.1f s (%,.0f events/s, not part of this benchmark)%n", events,
                    appendSeconds, events / appendSeconds);

            long t1 = System.nanoTime();
            try (SearchIndex index = SearchIndex.open(data, ledger, Clock.systemUTC())) {
                // The first request waits for the index to cover the log (src/site/http-api.md#conventions), up to the catch-up limit.
                while (!index.status().upToDate()) {
                    Thread.sleep(200);
                }
                index.find(new IndexRequest(null, null, IndexRequest.Order.NEWEST_FIRST, 0, 1));
                double indexSeconds = (System.nanoTime() - t1) / 1e9;
                System.out.printf("indexing: %,d events in %.1f s = %,.0f events/s (index size %,d MiB)%n", events,
                        indexSeconds, events / indexSeconds, size(data.resolve("index")) >> 20);

                measure(index, queries, "selective search  q=\"agent_id:agent-7 AND refund\" limit=100", r ->
                        new IndexRequest("agent_id:agent-" + r.nextInt(1000) + " AND " + WORDS[r.nextInt(WORDS.length)],
                                null, IndexRequest.Order.RELEVANCE, 0, 100));
                measure(index, queries, "broad search      q=\"revenue OR refund*\" (~50% of events) limit=100", r ->
                        new IndexRequest(WORDS[r.nextInt(WORDS.length)] + " OR " + WORDS[r.nextInt(WORDS.length)] + "*",
                                null, IndexRequest.Order.RELEVANCE, 0, 100));
                measure(index, queries, "broad AND search  q=\"revenue AND report\" limit=100", r ->
                        new IndexRequest(WORDS[r.nextInt(WORDS.length)] + " AND " + WORDS[r.nextInt(WORDS.length)],
                                null, IndexRequest.Order.RELEVANCE, 0, 100));
                measure(index, queries, "phrase search     q='\"quarterly revenue\"' limit=100", r ->
                        new IndexRequest("\"" + WORDS[r.nextInt(WORDS.length)] + " " + WORDS[r.nextInt(WORDS.length)] + "\"",
                                null, IndexRequest.Order.RELEVANCE, 0, 100));
                measure(index, queries, "broad search sorted by -timestamp, label.env=prod, limit=100", r ->
                        new IndexRequest(WORDS[r.nextInt(WORDS.length)], new EventFilter(null, null, null, null,
                                Map.of("env", "prod")), IndexRequest.Order.NEWEST_FIRST, 0, 100));
                measure(index, queries, "listing agent_id=agent-N, newest first, limit=100", r ->
                        new IndexRequest(null, new EventFilter("agent-" + r.nextInt(1000), null, null, null, Map.of()),
                                IndexRequest.Order.NEWEST_FIRST, 0, 100));
            }
        } finally {
            deleteTree(data);
        }
    }

    interface RequestMaker {
        IndexRequest make(Random rnd);
    }

    private static void measure(SearchIndex index, int queries, String name, RequestMaker maker) throws Exception {
        Random rnd = new Random(name.hashCode());
        for (int i = 0; i < Math.min(50, queries); i++) {
            index.find(maker.make(rnd)); // warm-up
        }
        long[] nanos = new long[queries];
        long hits = 0;
        for (int i = 0; i < queries; i++) {
            IndexRequest r = maker.make(rnd);
            long t = System.nanoTime();
            hits += index.find(r).total();
            nanos[i] = System.nanoTime() - t;
        }
        Arrays.sort(nanos);
        System.out.printf("%-70s p50 %6.1f ms  p99 %6.1f ms  (mean total %,d matches, %d queries)%n", name,
                nanos[queries / 2] / 1e6, nanos[(int) Math.min(queries - 1, Math.ceil(queries * 0.99) - 1)] / 1e6,
                hits / queries, queries);
    }

    private static String sentence(Random rnd, int words) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < words; i++) {
            b.append(i == 0 ? "" : " ").append(WORDS[rnd.nextInt(WORDS.length)]);
        }
        return b.toString();
    }

    private static long size(Path dir) throws Exception {
        try (var s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static void deleteTree(Path dir) throws Exception {
        try (var s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
