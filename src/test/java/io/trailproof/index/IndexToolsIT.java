package io.trailproof.index;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.LaunchedJvm;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** index-tools/rebuild-index and check-index on real data directories, and the online rebuild (src/site/cli.md). */
@Order(RunOrder.LONGEST)
class IndexToolsIT {

    @TempDir
    Path dir;

    record Run(int exit, String output) {
    }

    static Run tool(String name, Path dataDir) throws IOException, InterruptedException {
        ProcessBuilder pb = ServerProcess.onTestJdk(
                new ProcessBuilder("index-tools/" + name, "--data-dir", dataDir.toString()).redirectErrorStream(true));
        pb.environment().put("TRAILPROOF_HOME", ServerProcess.launcher().getParent().getParent().toString());
        pb.environment().put("TRAILPROOF_JAVA_OPTS", LaunchedJvm.withOptions("-Xmx256m"));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out);
    }

    static void fill(Api api, int from, int events) throws Exception {
        StringBuilder batch = new StringBuilder("[");
        for (int i = from; i < from + events; i++) {
            batch.append(i == from ? "" : ",").append("{\"agent_id\":\"agent-").append(i % 7)
                    .append("\",\"action_name\":\"call ").append(i).append("\"}");
        }
        assertThat(api.post("/v1/batch", batch.append("]").toString()).status()).isEqualTo(201);
    }

    @Test
    void checkFindsDifferencesAndRebuildRepairsThem() throws Exception {
        Path data = dir.resolve("data");
        try (InProcessServer server = InProcessServer.start(data)) {
            fill(server.api(), 0, 1000);
        }
        Run check = tool("check-index", data);
        assertThat(check.exit()).as(check.output()).isZero();
        assertThat(check.output()).contains("index and log agree: 1,000 events");

        IndexRecoveryIT.copyTree(data.resolve("index"), dir.resolve("old-index"));
        try (InProcessServer server = InProcessServer.start(data)) {
            fill(server.api(), 1000, 50);
        }
        IndexRecoveryIT.deleteTree(data.resolve("index"));
        IndexRecoveryIT.copyTree(dir.resolve("old-index"), data.resolve("index"));
        check = tool("check-index", data);
        assertThat(check.exit()).as(check.output()).isEqualTo(1);
        assertThat(check.output()).contains("DIFFER").contains("the index commit covers 1000 log entries; the log has 1050")
                .contains("log indexes 1000 to 1049 (50) are missing from the index")
                .contains("agent agent-0 has 150 events in the log and 143 in the index");

        Run rebuild = tool("rebuild-index", data);
        assertThat(rebuild.exit()).as(rebuild.output()).isZero();
        assertThat(rebuild.output()).contains("rebuilt the search index: 1,050 events");
        check = tool("check-index", data);
        assertThat(check.exit()).as(check.output()).isZero();
        assertThat(data.resolve("index").toFile().list()).containsExactlyInAnyOrder("current", "g000002");
    }

    @Test
    void checkNamesAnIndexOfAnOlderFormatAndRebuildReplacesIt() throws Exception {
        Path data = dir.resolve("data");
        try (InProcessServer server = InProcessServer.start(data)) {
            fill(server.api(), 0, 200);
        }
        LuceneEventIndexTest.markFormat(data.resolve("index/g000001"), "0");
        Run check = tool("check-index", data);
        assertThat(check.exit()).as(check.output()).isEqualTo(1);
        assertThat(check.output()).contains("written by another version").contains("index format 0");
        Run rebuild = tool("rebuild-index", data);
        assertThat(rebuild.exit()).as(rebuild.output()).isZero();
        check = tool("check-index", data);
        assertThat(check.exit()).as(check.output()).isZero();
        assertThat(check.output()).contains("index and log agree: 200 events");
    }

    @Test
    void offlineToolsRefuseARunningServersDirectory() throws Exception {
        Path data = dir.resolve("data");
        try (InProcessServer server = InProcessServer.start(data)) {
            fill(server.api(), 0, 10);
            Run check = tool("check-index", data);
            assertThat(check.exit()).isEqualTo(1);
            assertThat(check.output()).contains("in use by another trailproof process").contains("stop the server first");
            Run rebuild = tool("rebuild-index", data);
            assertThat(rebuild.exit()).isEqualTo(1);
            assertThat(server.api().get("/v1/events?limit=1").header("X-Total-Count")).isEqualTo("10");
        }
        Run missing = tool("check-index", dir.resolve("nothing-here"));
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.output()).contains("not a trailproof data directory");
    }

    @Test
    void onlineRebuildWhileIngestingThenCheckPasses() throws Exception {
        Path data = dir.resolve("data");
        AtomicInteger written = new AtomicInteger();
        try (InProcessServer server = InProcessServer.start(data)) {
            Api api = server.api();
            for (int i = 0; i < 10; i++) {
                fill(api, i * 2000, 2000);
            }
            written.set(20_000);
            // On a busy machine the index may trail the log by more than the listing's wait: the answer
            // then says so (X-Index-Behind) and counts what is indexed; the complete one comes once it follows.
            Await.untilTrue("the listing is complete", Duration.ofMinutes(2),
                    () -> api.get("/v1/events?limit=1").header("X-Index-Behind") == null);
            assertThat(api.get("/v1/events?limit=1").header("X-Total-Count")).isEqualTo("20000");
            assertThat(api.get("/v1/admin/index").json().get("state").asText()).isEqualTo("ready");
            AtomicBoolean ingesting = new AtomicBoolean(true);
            Thread ingest = new Thread(() -> {
                try {
                    while (ingesting.get()) {
                        fill(api, written.get(), 50);
                        written.addAndGet(50);
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            ingest.start();
            var started = api.post("/v1/admin/index/rebuild", "{}");
            assertThat(started.status()).isEqualTo(202);
            assertThat(started.json().get("state").asText()).isEqualTo("running");
            AtomicBoolean sawRebuilding = new AtomicBoolean();
            AtomicReference<JsonNode> last = new AtomicReference<>();
            try {
                Await.untilTrue("the online rebuild is done", Duration.ofMinutes(3), () -> {
                    JsonNode polled = api.get("/v1/admin/index").json();
                    last.set(polled);
                    if (polled.get("state").asText().equals("rebuilding")) {
                        sawRebuilding.set(true);
                    }
                    // Still answering, from the old index, during the rebuild: read after write holds,
                    // or the answer says how far behind it is (X-Index-Behind: a search waits at most
                    // index.catch-up-wait-ms for the index, then answers from what it holds).
                    int before = written.get();
                    var page = api.get("/v1/events?limit=1");
                    long listed = Long.parseLong(page.header("X-Total-Count"));
                    String behind = page.header("X-Index-Behind");
                    if (behind == null) {
                        assertThat(listed).isGreaterThanOrEqualTo(before);
                    } else {
                        assertThat(listed + Long.parseLong(behind)).isGreaterThanOrEqualTo(before);
                    }
                    return polled.get("rebuild").get("state").asText().equals("done");
                });
            } finally {
                ingesting.set(false);
                ingest.join();
            }
            JsonNode status = last.get();
            assertThat(status.get("rebuild").get("state").asText()).isEqualTo("done");
            assertThat(status.get("generation").asText()).isEqualTo("g000002");
            assertThat(sawRebuilding).isTrue();
            fill(api, written.get(), 10);
            written.addAndGet(10);
            Await.untilTrue("the listing is complete", Duration.ofMinutes(2),
                    () -> api.get("/v1/events?limit=1").header("X-Index-Behind") == null);
            assertThat(api.get("/v1/events?limit=1").header("X-Total-Count")).isEqualTo(Integer.toString(written.get()));
            assertThat(api.get("/v1/search?q=" + (written.get() - 1)).json().get("total").asLong()).isEqualTo(1);
        }
        Run check = tool("check-index", data);
        assertThat(check.exit()).as(check.output()).isZero();
        assertThat(check.output()).contains(String.format("%,d events", written.get()));
        assertThat(data.resolve("index").toFile().list()).containsExactlyInAnyOrder("current", "g000002");
    }

    @Test
    void checkReportsADamagedIndex() throws Exception {
        Path data = dir.resolve("data");
        try (InProcessServer server = InProcessServer.start(data)) {
            fill(server.api(), 0, 100);
        }
        Path gen = data.resolve("index/g000001");
        for (String f : List.of(gen.toFile().list())) {
            if (f.endsWith(".cfs")) {
                Files.write(gen.resolve(f), new byte[] {1, 2, 3});
            }
        }
        Run check = tool("check-index", data);
        assertThat(check.exit()).as(check.output()).isEqualTo(1);
        assertThat(check.output()).contains("is damaged");
    }
}
