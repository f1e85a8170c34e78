package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.index.EventFilter;
import io.trailproof.index.IndexRequest;
import io.trailproof.index.SearchIndex;
import io.trailproof.ledger.Ledger;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The trail of who looked (src/site/sign-in.md#the-trail-of-who-looked) against the real server with
 * named keys: a search and an export are recorded as ACCESS events of agent trailproof.access with
 * the key's name, the route, the query string, the status and the number of results; health,
 * metrics, the console's files and unauthenticated requests are not; clients cannot write as the
 * agent; its chain verifies; a search never waits for the index to hold the records of earlier
 * reads, and a search of the trail finds a record indexed a second or more before it started.
 */
class AccessTrailIT {

    private static final String INGEST = "ingest-secret-2b7e";
    private static final String ALICE = "alice-secret-5d1f";
    private static final String AUDITOR = "auditor-secret-9c3a";
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @TempDir
    static Path dir;
    static InProcessServer server;
    static Api api;

    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"), "auth.api-keys",
                "shipper=" + INGEST + ":ingest,alice=" + ALICE + ":read,auditor=" + AUDITOR + ":admin");
        api = server.api();
        for (int i = 0; i < 3; i++) {
            Reply r = send("POST", "/v1/events", INGEST, "{\"agent_id\":\"agent-007\",\"action_type\":\"TOOL_CALL\","
                    + "\"action_name\":\"wire_transfer\",\"action_input\":{\"n\":" + i + "}}");
            assertThat(r.status()).as(r.body()).isEqualTo(201);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static Reply send(String method, String path, String key, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(api.base() + path));
        if (body == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.method(method, HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json");
        }
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return api.send(b);
    }

    /** ACCESS events of the trail, oldest first, read straight from the ledger (so the reading is not itself recorded). */
    private static List<JsonNode> accessEvents() throws Exception {
        List<JsonNode> events = new ArrayList<>();
        long[] positions = server.server().ledger().agentPositions("trailproof.access");
        for (long p : positions) {
            events.add(Api.JSON.readTree(server.server().ledger().payloadAt(p)));
        }
        return events;
    }

    private static List<JsonNode> by(String who) throws Exception {
        return accessEvents().stream().filter(e -> e.at("/action_input/who").asText().equals(who)).toList();
    }

    @Test
    void aSearchAndAnExportAreRecordedWithTheirReaderCountsAndStatus() throws Exception {
        // filtered to the agent: the trail's records of other tests' searches hold the word too
        Await.untilTrue("the three events are searchable", DEADLINE, () -> send("GET",
                "/v1/search?q=wire_transfer&agent_id=agent-007", AUDITOR, null).json().get("total").asLong() == 3);
        Reply search = send("GET", "/v1/search?q=wire_transfer&agent_id=agent-007&limit=2", ALICE, null);
        assertThat(search.status()).as(search.body()).isEqualTo(200);
        Reply export = send("GET", "/v1/export?agent_id=agent-007", ALICE, null);
        assertThat(export.status()).as(export.body()).isEqualTo(200);
        Reply missing = send("GET", "/v1/export?agent_id=nobody", ALICE, null);
        assertThat(missing.status()).isEqualTo(404);
        Reply forbidden = send("GET", "/v1/admin/erasures", ALICE, null);
        assertThat(forbidden.status()).isEqualTo(403);
        // Not recorded: health, metrics, the console's files, a request without a valid key.
        assertThat(send("GET", "/health", null, null).status()).isEqualTo(200);
        assertThat(send("GET", "/metrics", ALICE, null).status()).isEqualTo(200);
        assertThat(send("GET", "/ui/", null, null).status()).isEqualTo(200);
        assertThat(send("GET", "/ui/console.css", null, null).status()).isEqualTo(200);
        assertThat(send("GET", "/v1/search?q=x", "not-a-key", null).status()).isEqualTo(401);

        Await.untilTrue("alice's four reads are in the trail", DEADLINE, () -> by("alice").size() == 4);
        List<JsonNode> alice = by("alice");
        JsonNode s = alice.get(0);
        assertThat(s.get("agent_id").asText()).isEqualTo("trailproof.access");
        assertThat(s.get("action_type").asText()).isEqualTo("ACCESS");
        assertThat(s.get("action_name").asText()).isEqualTo("GET /v1/search");
        assertThat(s.at("/action_input/method").asText()).isEqualTo("GET");
        assertThat(s.at("/action_input/path").asText()).isEqualTo("/v1/search");
        assertThat(s.at("/action_input/query").asText()).isEqualTo("q=wire_transfer&agent_id=agent-007&limit=2");
        assertThat(s.at("/action_output/status").asInt()).isEqualTo(200);
        assertThat(s.at("/action_output/results").asLong()).isEqualTo(2);

        JsonNode e = alice.get(1);
        assertThat(e.get("action_name").asText()).isEqualTo("GET /v1/export");
        assertThat(e.at("/action_input/query").asText()).isEqualTo("agent_id=agent-007");
        assertThat(e.at("/action_output/status").asInt()).isEqualTo(200);
        assertThat(e.at("/action_output/results").asLong()).isEqualTo(3);

        JsonNode refused = alice.get(2);
        assertThat(refused.get("action_name").asText()).isEqualTo("GET /v1/export");
        assertThat(refused.get("action_status").asText()).isEqualTo("error");
        assertThat(refused.at("/action_output/status").asInt()).isEqualTo(404);
        assertThat(refused.at("/action_output/results").isNull()).isTrue();

        JsonNode tried = alice.get(3);
        assertThat(tried.get("action_name").asText()).isEqualTo("GET /v1/admin/erasures");
        assertThat(tried.at("/action_output/status").asInt()).isEqualTo(403);

        // Nothing else was recorded: no health, metrics, console file, unauthenticated or ingest request.
        for (JsonNode event : accessEvents()) {
            assertThat(event.at("/action_input/path").asText()).doesNotContain("/health", "/metrics")
                    .doesNotStartWith("/ui").isNotEqualTo("/v1/events");
            assertThat(event.at("/action_input/who").asText()).isIn("alice", "auditor");
        }
        // The trail is searchable like any agent, and its chain verifies.
        Await.untilTrue("alice's reads are searchable", DEADLINE, () -> send("GET",
                "/v1/search?q=input:alice%20AND%20action_name:export&agent_id=trailproof.access", AUDITOR, null)
                .json().get("total").asLong() == 2);
        Reply verify = send("GET", "/v1/verify?agent_id=trailproof.access", AUDITOR, null);
        assertThat(verify.json().get("valid").asBoolean()).as(verify.body()).isTrue();
        assertThat(verify.json().get("events_verified").asLong()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void aSearchNeverWaitsForTheRecordsOfEarlierReadsAndASearchOfTheTrailFindsThem() throws Exception {
        Ledger ledger = server.server().ledger();
        SearchIndex index = server.server().searchIndex();
        Await.untilTrue("the three events are searchable", DEADLINE,
                () -> send("GET", "/v1/search?q=wire_transfer&agent_id=agent-007", AUDITOR, null).json().get("total").asLong() == 3);
        try (AutoCloseable held = index.holdFollower()) {
            Await.until("the follower waits at the hold", DEADLINE, index::followerHeld);
            long before = ledger.size();
            assertThat(send("GET", "/v1/search?q=wire_transfer&agent_id=agent-007", AUDITOR, null).status()).isEqualTo(200);
            Await.until("the search's record is in the log and known as the service's own", DEADLINE,
                    () -> ledger.size() > before && index.backgroundRecords().readTarget(ledger.size()) <= before);
            // The held index cannot hold that record: a search that waited for it would be answered only
            // after index.catch-up-wait-ms (5 s), from what is indexed, with X-Index-Behind.
            long started = System.nanoTime();
            Reply next = send("GET", "/v1/search?q=wire_transfer&agent_id=agent-007", AUDITOR, null);
            assertThat(next.status()).isEqualTo(200);
            assertThat(next.header("X-Index-Behind")).isNull();
            assertThat(next.json().get("total").asLong()).isEqualTo(3);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        }
        // Let go, the follower indexes the records, and a search of the trail makes them searchable
        // (the index is read here directly, which records nothing).
        long recorded = accessEvents().size();
        IndexRequest all = new IndexRequest(null, new EventFilter("trailproof.access", null, null, null, null),
                IndexRequest.Order.NEWEST_FIRST, 0, 1);
        Await.untilTrue("every record of a read is searchable", DEADLINE, () -> index.find(all).total() >= recorded);
    }

    /**
     * On an otherwise idle server, a read's record is found by a search of the trail once it is
     * indexed: every search that starts a second or more after that finds it (the first after a
     * quiet spell at once), with no wait written into the test.
     */
    @Test
    void aReadsRecordIsSearchableWithinASecondOfBeingIndexed() throws Exception {
        Ledger ledger = server.server().ledger();
        SearchIndex index = server.server().searchIndex();
        Reply read = send("GET", "/v1/search?q=idleprobe&agent_id=agent-007", AUDITOR, null);
        assertThat(read.status()).as(read.body()).isEqualTo(200);
        long[] at = {-1};
        Await.untilTrue("the read's record is in the log and indexed", DEADLINE, () -> {
            long[] positions = ledger.agentPositions("trailproof.access");
            for (long p : positions) {
                if (Api.JSON.readTree(ledger.payloadAt(p)).at("/action_input/query").asText().contains("idleprobe")) {
                    at[0] = p;
                }
            }
            return at[0] >= 0 && index.status().indexed() > at[0];
        });
        long indexed = System.nanoTime();
        Await.untilTrue("a search of the trail finds the read", DEADLINE, () -> {
            long started = System.nanoTime();
            Reply found = send("GET", "/v1/search?q=input:idleprobe&agent_id=trailproof.access", AUDITOR, null);
            assertThat(found.status()).as(found.body()).isEqualTo(200);
            if (found.json().get("total").asLong() >= 1) {
                return true;
            }
            assertThat(Duration.ofNanos(started - indexed)).as("a search of the trail that started after the record "
                    + "had been indexed for a second missed it").isLessThan(Duration.ofSeconds(1));
            return false;
        });
    }

    /**
     * The trail's records are in the index's own sub-directory, which an online rebuild builds with
     * the rest: afterwards the trail and agents' events answer as before.
     */
    @Test
    void anOnlineRebuildBuildsTheTrailsOwnIndexWithTheRest() throws Exception {
        SearchIndex index = server.server().searchIndex();
        IndexRequest trail = new IndexRequest(null, new EventFilter("trailproof.access", null, null, null, null),
                IndexRequest.Order.NEWEST_FIRST, 0, 1);
        IndexRequest agent = new IndexRequest("wire_transfer", new EventFilter("agent-007", null, null, null, null),
                IndexRequest.Order.RELEVANCE, 0, 10);
        Await.untilTrue("the three events are searchable", DEADLINE, () -> index.find(agent).total() == 3);
        Reply started = send("POST", "/v1/admin/index/rebuild", AUDITOR, null);
        assertThat(started.status()).as(started.body()).isEqualTo(202);
        Await.untilTrue("the rebuild is done", DEADLINE, () -> send("GET", "/v1/admin/index", AUDITOR, null).json()
                .at("/rebuild/state").asText().equals("done"));
        // the index is read directly here, which records nothing: the trail stops growing
        Await.untilTrue("every record of a read is searchable in the rebuilt index", DEADLINE,
                () -> index.find(trail).total() == accessEvents().size());
        assertThat(index.find(agent).total()).isEqualTo(3);
        Path generation = dir.resolve("data/index").resolve(index.status().generation());
        assertThat(generation).isNotEqualTo(dir.resolve("data/index/g000001"));
        assertThat(generation.resolve("access")).isDirectory();
    }

    @Test
    void clientsCannotWriteAsTheAccessTrail() throws Exception {
        Reply r = send("POST", "/v1/events", INGEST, "{\"agent_id\":\"trailproof.access\",\"action_type\":\"ACCESS\"}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("error").asText()).contains("reserved");
    }
}
