package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.merkle.MerkleProofs;
import io.trailproof.testing.Api;
import io.trailproof.http.FuzzCases.Case;
import io.trailproof.http.FuzzCases.Expected;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Malformed requests over every endpoint and parameter, and a seeded random mutator of event and
 * batch bodies. Every refusal must be a 4xx with a non-empty {@code {"error"}} that changed nothing;
 * nothing may ever be a 5xx or hang; everything accepted must be retrievable and verify.
 */
class FuzzIT {

    private static final long SEED = 0x7EA11_5EC_0006L;
    /** Mutated bodies posted: 4,000 by default, 10,000 in the nightly profile (src/site/testing.md#nightly-profile). */
    private static final int MUTATED_BODIES = Integer.getInteger("trailproof.fuzz.bodies", 4_000);

    @TempDir
    static Path dir;
    static InProcessServer server;
    static Api api;
    static String base;
    static String knownId;
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"), "limits.max-body-bytes", String.valueOf(FuzzCases.MAX_BODY),
                "limits.max-batch-events", String.valueOf(FuzzCases.MAX_BATCH));
        api = server.api();
        base = "http://127.0.0.1:" + server.server().port();
        for (int i = 0; i < 5; i++) {
            knownId = api.post("/v1/events", "{\"agent_id\":\"fuzz-base\",\"action_type\":\"SEED\"}").json().get("id").asText();
        }
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    static HttpResponse<String> send(Case c) throws Exception {
        return send(CLIENT, c);
    }

    /** Sends with a 30 s timeout: a request that gets no answer in that time is a hang and fails the test. */
    static HttpResponse<String> send(HttpClient client, Case c) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + c.path())).timeout(Duration.ofSeconds(30));
        b.method(c.method(), c.body() == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(c.body()));
        if (c.contentType() != null) {
            b.header("Content-Type", c.contentType());
        }
        if (c.body() != null && c.body().length > FuzzCases.MAX_BODY) {
            // The server refuses a body over the limit on its declared length and closes the
            // connection; without waiting for 100-continue the client may still be uploading then,
            // and its write is reset before it reads the 413 (as in LedgerEndpointsIT).
            b.expectContinue(true);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String rootState() throws Exception {
        JsonNode r = api.get("/v1/merkle/root").json();
        return r.get("tree_size").asLong() + "/" + r.get("root").asText();
    }

    static HttpResponse<String> assertRefusedAndNothingChanged(Case c) throws Exception {
        String before = rootState();
        HttpResponse<String> r = send(c);
        assertThat(r.statusCode()).as(c.name() + ": " + r.body()).isBetween(400, 499);
        JsonNode body = Api.JSON.readTree(r.body());
        assertThat(body.path("error").asText()).as(c.name()).isNotBlank();
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(rootState()).as(c.name() + " changed the tree").isEqualTo(before);
        return r;
    }

    /** {@link #assertRefusedAndNothingChanged}, with the exact status, and no timestamp stored either. */
    static void assertRefusedWith(Expected e) throws Exception {
        String before = timestampCount();
        HttpResponse<String> r = assertRefusedAndNothingChanged(e.c());
        assertThat(r.statusCode()).as(e.c().name() + ": " + r.body()).isEqualTo(e.status());
        assertThat(timestampCount()).as(e.c().name() + " stored a timestamp").isEqualTo(before);
    }

    static String timestampCount() throws Exception {
        return api.get("/v1/timestamps").header("X-Total-Count");
    }

    @Test
    void theTablesAreLargeAndDistinct() {
        List<Case> cases = FuzzCases.existingEndpointCases(knownId);
        assertThat(cases).hasSizeGreaterThanOrEqualTo(60);
        assertThat(cases.stream().map(Case::name).distinct().count()).isEqualTo(cases.size());
        for (String endpoint : List.of("POST /v1/events", "POST /v1/batch", "GET /v1/events/", "GET /v1/verify",
                "GET /v1/merkle/root", "GET /v1/merkle/proof", "GET /v1/merkle/consistency")) {
            String[] mp = endpoint.split(" ");
            assertThat(cases).as(endpoint).anyMatch(c -> c.method().equals(mp[0]) && c.path().startsWith(mp[1]));
        }
    }

    @TestFactory
    Stream<DynamicTest> malformedRequestsToExistingEndpoints() {
        return FuzzCases.existingEndpointCases(knownId).stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> assertRefusedAndNothingChanged(c)));
    }

    @TestFactory
    Stream<DynamicTest> malformedRequestsToExportAndTimestampingGetTheirExactStatus() {
        List<Expected> cases = FuzzCases.exportAndTimestampCases();
        assertThat(cases.stream().map(e -> e.c().name()).distinct().count()).isEqualTo(cases.size());
        return cases.stream().map(e -> DynamicTest.dynamicTest(e.c().name() + " -> " + e.status(), () -> assertRefusedWith(e)));
    }

    @Test
    void timestampingAnEmptyLogIsAConflictThatChangesNothing() throws Exception {
        try (InProcessServer empty = InProcessServer.start(dir.resolve("empty"))) {
            Api e = empty.api();
            for (String body : List.of("{}", "")) {
                Api.Reply r = e.post("/v1/timestamp", body);
                assertThat(r.status()).as(r.body()).isEqualTo(409);
                assertThat(r.json().path("error").asText()).contains("log is empty");
            }
            assertThat(e.get("/v1/timestamps").header("X-Total-Count")).isEqualTo("0");
            assertThat(e.get("/v1/timestamps/verify").status()).isEqualTo(404);
            Api.Reply export = e.get("/v1/export?agent_id=anyone");
            assertThat(export.status()).isEqualTo(404);
            assertThat(export.json().path("error").asText()).isNotBlank();
            assertThat(e.get("/v1/merkle/root").json().get("tree_size").asLong()).isZero();
        }
    }

    /** src/site/http-api.md#conventions: a {@code limit} above 1000 is 1000, also one larger than any number a long can hold. */
    @Test
    void aLimitBeyondAnyNumberIsTheMaximum() throws Exception {
        for (String huge : List.of("1001", "9223372036854775808", "99999999999999999999",
                "123456789012345678901234567890")) {
            for (String path : List.of("/v1/events?limit=", "/v1/search?q=*:*&limit=", "/v1/timestamps?limit=")) {
                Api.Reply r = api.get(path + huge);
                assertThat(r.status()).as(path + huge + ": " + r.body()).isEqualTo(200);
            }
            Api.Reply search = api.get("/v1/search?q=*:*&limit=" + huge);
            assertThat(search.json().get("limit").asInt()).as(huge).isEqualTo(1000);
        }
        Api.Reply negative = api.get("/v1/events?limit=-99999999999999999999");
        assertThat(negative.status()).as(negative.body()).isEqualTo(400);
    }

    @TestFactory
    Stream<DynamicTest> malformedListAndSearchRequestsAreA400() {
        List<Case> cases = FuzzCases.listAndSearchCases();
        assertThat(cases.stream().map(Case::name).distinct().count()).isEqualTo(cases.size());
        return cases.stream().map(c -> DynamicTest.dynamicTest(c.name() + " -> 400",
                () -> assertRefusedWith(new Expected(c, 400))));
    }

    @Test
    void seededMutatorNeverBreaksTheService() throws Exception {
        long sizeBefore = api.get("/v1/merkle/root").json().get("tree_size").asLong();
        EventMutator mutator = new EventMutator(new Random(SEED));
        List<Case> bodies = new ArrayList<>(MUTATED_BODIES);
        for (int i = 0; i < MUTATED_BODIES; i++) {
            boolean batch = i % 2 == 1;
            bodies.add(Case.postBytes("mutant " + i, batch ? "/v1/batch" : "/v1/events",
                    batch ? mutator.batch() : mutator.event()));
        }
        // A client of its own: the table tests' connections are not shared with these threads.
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        ConcurrentLinkedQueue<JsonNode> accepted = new ConcurrentLinkedQueue<>();
        Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (Case c : bodies) {
                done.add(pool.submit(() -> {
                    HttpResponse<String> r = send(client, c);
                    statuses.computeIfAbsent(r.statusCode(), s -> new AtomicInteger()).incrementAndGet();
                    String text = new String(c.body(), StandardCharsets.UTF_8);
                    String shown = c.name() + " " + text.substring(0, Math.min(300, text.length())) + " -> "
                            + r.statusCode() + " " + r.body();
                    assertThat(r.statusCode()).as(shown).isLessThan(500);
                    JsonNode body = Api.JSON.readTree(r.body());
                    if (r.statusCode() >= 400) {
                        assertThat(body.path("error").asText()).as(shown).isNotBlank();
                    } else if (c.path().equals("/v1/events")) {
                        assertThat(r.statusCode()).as(shown).isEqualTo(201);
                        accepted.add(body);
                    } else {
                        assertThat(r.statusCode()).as(shown).isIn(201, 207);
                        for (JsonNode item : body) {
                            if (item.has("event")) {
                                accepted.add(item.get("event"));
                            } else {
                                assertThat(r.statusCode()).as(shown).isEqualTo(207);
                                assertThat(item.path("error").asText()).as(shown).isNotBlank();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            // Everything accepted is there, byte for byte, with a hash anyone can recompute.
            Map<String, Integer> perAgent = new HashMap<>();
            List<Future<?>> checks = new ArrayList<>();
            for (JsonNode event : accepted) {
                perAgent.merge(event.get("agent_id").asText(), 1, Integer::sum);
                checks.add(pool.submit(() -> {
                    HttpResponse<String> got = send(client, Case.get("lookup", "/v1/events/" + event.get("id").asText()));
                    assertThat(got.statusCode()).isEqualTo(200);
                    assertThat(Api.JSON.readTree(got.body())).isEqualTo(event);
                    assertThat(LedgerEndpointsIT.recomputeHash(event)).isEqualTo(event.get("hash").asText());
                    return null;
                }));
            }
            for (Future<?> f : checks) {
                f.get();
            }
            for (String agent : perAgent.keySet()) {
                JsonNode v = api.get("/v1/verify?agent_id=" + URLEncoder.encode(agent, StandardCharsets.UTF_8)).json();
                assertThat(v.get("valid").asBoolean()).as(agent + ": " + v).isTrue();
                assertThat(v.get("events_verified").asLong()).as(agent).isGreaterThanOrEqualTo(perAgent.get(agent));
            }
        } finally {
            pool.shutdownNow();
        }
        long sizeAfter = api.get("/v1/merkle/root").json().get("tree_size").asLong();
        assertThat(sizeAfter).as("every accepted event, and nothing else, was added").isEqualTo(sizeBefore + accepted.size());
        JsonNode c = api.get("/v1/merkle/consistency?from=" + sizeBefore).json();
        assertThat(MerkleProofs.verifyConsistency(sizeBefore, sizeAfter,
                HexFormat.of().parseHex(c.get("from_root").asText()), HexFormat.of().parseHex(c.get("to_root").asText()),
                hexList(c.get("proof")))).isTrue();
        // The mutator must exercise both outcomes to mean anything.
        assertThat(accepted.size()).isGreaterThan(MUTATED_BODIES / 10);
        assertThat(statuses.getOrDefault(400, new AtomicInteger()).get()).isGreaterThan(MUTATED_BODIES / 10);
        System.out.println("FuzzIT mutator: " + MUTATED_BODIES + " bodies, statuses " + statuses + ", " + accepted.size()
                + " events accepted");
    }

    /**
     * The mutator's bodies again, each under an {@code Idempotency-Key} (src/site/ingestion.md#idempotency), sent twice and
     * then once with another body: a refusal records nothing (the same request is judged afresh, and
     * no replay is claimed); a stored answer is replayed byte for byte with {@code Idempotent-Replayed};
     * another body under a recorded key is a 422; and the tree grows by the accepted events once.
     */
    @Test
    void seededMutatorUnderIdempotencyKeysStoresEachAcceptedBodyOnce() throws Exception {
        long sizeBefore = api.get("/v1/merkle/root").json().get("tree_size").asLong();
        EventMutator mutator = new EventMutator(new Random(SEED + 1));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        AtomicLong stored = new AtomicLong();
        Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                boolean batch = i % 2 == 1;
                String path = batch ? "/v1/batch" : "/v1/events";
                byte[] body = batch ? mutator.batch() : mutator.event();
                byte[] other = batch ? mutator.batch() : mutator.event();
                String key = "fuzz-key-" + i;
                done.add(pool.submit(() -> {
                    HttpResponse<String> first = sendKeyed(client, path, key, body);
                    HttpResponse<String> again = sendKeyed(client, path, key, body);
                    String text = new String(body, StandardCharsets.UTF_8);
                    String shown = path + " " + text.substring(0, Math.min(200, text.length())) + " -> "
                            + first.statusCode() + " " + first.body();
                    statuses.computeIfAbsent(first.statusCode(), x -> new AtomicInteger()).incrementAndGet();
                    assertThat(first.statusCode()).as(shown).isLessThan(500);
                    assertThat(again.statusCode()).as(shown).isEqualTo(first.statusCode());
                    if (first.statusCode() >= 400) {
                        assertThat(again.headers().firstValue("Idempotent-Replayed")).as(shown).isEmpty();
                        assertThat(Api.JSON.readTree(again.body()).path("error").asText()).as(shown).isNotBlank();
                        return null;
                    }
                    assertThat(again.body()).as(shown).isEqualTo(first.body());
                    assertThat(again.headers().firstValue("Idempotent-Replayed")).as(shown).hasValue("true");
                    if (!Arrays.equals(other, body)) {
                        assertThat(sendKeyed(client, path, key, other).statusCode()).as(shown).isEqualTo(422);
                    }
                    JsonNode answer = Api.JSON.readTree(first.body());
                    if (path.equals("/v1/events")) {
                        stored.incrementAndGet();
                    } else {
                        answer.forEach(item -> {
                            if (item.has("event")) {
                                stored.incrementAndGet();
                            }
                        });
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        long sizeAfter = api.get("/v1/merkle/root").json().get("tree_size").asLong();
        assertThat(sizeAfter).as("each accepted body stored once, whatever the retries").isEqualTo(sizeBefore + stored.get());
        assertThat(stored.get()).isGreaterThan(100);
        assertThat(statuses.getOrDefault(400, new AtomicInteger()).get()).isGreaterThan(100);
    }

    private static HttpResponse<String> sendKeyed(HttpClient client, String path, String key, byte[] body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<byte[]> hexList(JsonNode array) {
        List<byte[]> out = new ArrayList<>();
        array.forEach(n -> out.add(HexFormat.of().parseHex(n.asText())));
        return out;
    }

}
