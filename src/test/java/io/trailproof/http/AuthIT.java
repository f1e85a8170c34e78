package io.trailproof.http;

import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/** Every auth rule of src/site/http-api.md#conventions against the real server with keys configured. */
class AuthIT {

    private static final String INGEST = "ingest-secret-7f3a";
    private static final String READ = "read-secret-91bc";
    private static final String ADMIN = "admin-secret-c0de";
    private static final String ALL = "all-roles-secret-5e5e";
    private static final List<String> SECRETS = List.of(INGEST, READ, ADMIN, ALL);

    @TempDir
    static Path dir;
    static InProcessServer server;
    static Api api;
    static String base;
    static final List<String> logged = new CopyOnWriteArrayList<>();
    static final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            logged.add(r.getMessage() + " " + r.getThrown());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeAll
    static void start() throws Exception {
        Logger.getLogger("").addHandler(capture);
        server = InProcessServer.start(dir.resolve("data"), "auth.api-keys",
                INGEST + ":ingest," + READ + ":read," + ADMIN + ":admin," + ALL,
                // "Refused requests change nothing" is checked with the tree size, which records of reads would grow.
                "access-trail.enabled", "false");
        api = server.api();
        base = "http://127.0.0.1:" + server.server().port();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        Logger.getLogger("").removeHandler(capture);
        // No key ever reached a log record, whatever happened above.
        for (String line : logged) {
            for (String secret : SECRETS) {
                assertThat(line).doesNotContain(secret);
            }
        }
    }

    private static Reply send(String method, String path, String key, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
        if (body == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.method(method, HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json");
        }
        if (key != null) {
            b.header("Authorization", key.contains(" ") ? key : "Bearer " + key);
        }
        return api.send(b);
    }

    private static void assertRefused(Reply r, int status) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().get("error").asText()).isNotBlank();
        for (String secret : SECRETS) {
            assertThat(r.body()).doesNotContain(secret);
        }
        if (status == 401) {
            assertThat(r.header("WWW-Authenticate")).isEqualTo("Bearer");
        }
    }

    private static long treeSize() throws Exception {
        return send("GET", "/v1/merkle/root", READ, null).json().get("tree_size").asLong();
    }

    @Test
    void healthIsOpen() throws Exception {
        Reply r = send("GET", "/health", null, null);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("status").asText()).isEqualTo("ok");
        assertThat(send("GET", "/health", "not-a-key", null).status()).isEqualTo(200);
    }

    @Test
    void missingOrUnknownKeyIs401OnEveryEndpoint() throws Exception {
        long before = treeSize();
        String event = "{\"agent_id\":\"auth-a\"}";
        for (String key : new String[] {null, "wrong-key", "Bearer " + INGEST + "x", "Basic " + INGEST, INGEST.substring(1),
                "Bearer", "Bearer  "}) {
            assertRefused(send("POST", "/v1/events", key, event), 401);
            assertRefused(send("POST", "/v1/batch", key, "[" + event + "]"), 401);
            for (String path : List.of("/v1/agents", "/v1/stats", "/v1/verify?agent_id=auth-a", "/v1/merkle/root",
                    "/v1/merkle/proof?event_id=x", "/v1/merkle/consistency?from=1",
                    "/v1/events/019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00", "/v1/events", "/v1/search?q=x",
                    "/v1/export?agent_id=a", "/v1/timestamps")) {
                assertRefused(send("GET", path, key, null), 401);
            }
            assertRefused(send("POST", "/v1/timestamp", key, "{}"), 401);
        }
        assertThat(treeSize()).isEqualTo(before);
    }

    @Test
    void unknownPathsAndMethodsAnswer401BeforeRevealingAnything() throws Exception {
        assertRefused(send("GET", "/v1/nothing-here", null, null), 401);
        assertRefused(send("GET", "/nothing", null, null), 401);
        assertRefused(send("DELETE", "/v1/agents", null, null), 401);
        // With a valid key the usual 404 and 405 follow, whatever the key's roles.
        assertRefused(send("GET", "/v1/nothing-here", INGEST, null), 404);
        Reply wrongMethod = send("DELETE", "/v1/agents", INGEST, null);
        assertRefused(wrongMethod, 405);
        assertThat(wrongMethod.header("Allow")).isEqualTo("GET");
    }

    @Test
    void rolesDecideWhatAKeyMayDo() throws Exception {
        long before = treeSize();
        // ingest may write, not read.
        Reply written = send("POST", "/v1/events", INGEST, "{\"agent_id\":\"auth-roles\"}");
        assertThat(written.status()).isEqualTo(201);
        String id = written.json().get("id").asText();
        assertThat(send("POST", "/v1/batch", INGEST, "[{\"agent_id\":\"auth-roles\"}]").status()).isEqualTo(201);
        for (String path : List.of("/v1/events/" + id, "/v1/agents", "/v1/stats", "/v1/verify?agent_id=auth-roles",
                "/v1/merkle/root", "/v1/merkle/proof?event_id=" + id, "/v1/merkle/consistency?from=1")) {
            Reply r = send("GET", path, INGEST, null);
            assertRefused(r, 403);
            assertThat(r.json().get("error").asText()).contains("read");
        }
        // read may read, not write.
        for (String path : List.of("/v1/events/" + id, "/v1/agents", "/v1/stats", "/v1/verify?agent_id=auth-roles",
                "/v1/merkle/root", "/v1/merkle/proof?event_id=" + id, "/v1/merkle/consistency?from=1")) {
            assertThat(send("GET", path, READ, null).status()).as(path).isEqualTo(200);
        }
        Reply refused = send("POST", "/v1/events", READ, "{\"agent_id\":\"auth-roles\"}");
        assertRefused(refused, 403);
        assertThat(refused.json().get("error").asText()).contains("ingest");
        assertRefused(send("POST", "/v1/batch", READ, "[{\"agent_id\":\"auth-roles\"}]"), 403);
        assertThat(treeSize()).isEqualTo(before + 2);
        // admin implies every role, and a key given without roles has them all.
        for (String key : List.of(ADMIN, ALL, "bearer " + ADMIN)) {
            assertThat(send("POST", "/v1/events", key, "{\"agent_id\":\"auth-roles\"}").status()).isEqualTo(201);
            assertThat(send("GET", "/v1/verify?agent_id=auth-roles", key, null).json().get("valid").asBoolean()).isTrue();
            assertThat(send("GET", "/v1/events/" + id, key, null).status()).isEqualTo(200);
        }
    }

    @Test
    void refusedRequestsWithABodyChangeNothing() throws Exception {
        long before = treeSize();
        String bigBatch = "[" + "{\"agent_id\":\"auth-big\",\"error_message\":\"x\"},".repeat(2000) + "{\"agent_id\":\"z\"}]";
        assertRefused(send("POST", "/v1/batch", null, bigBatch), 401);
        assertRefused(send("POST", "/v1/batch", READ, bigBatch), 403);
        assertThat(treeSize()).isEqualTo(before);
        // The connection pool goes on working after refusals that left a body unread.
        assertThat(send("POST", "/v1/events", INGEST, "{\"agent_id\":\"auth-after\"}").status()).isEqualTo(201);
    }
}
