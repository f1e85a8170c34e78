package io.trailproof.index;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * src/site/http-api.md#conventions: an event acknowledged before a list or search request starts is in its result,
 * while other clients keep writing. Other writes can hide a reader that only sees an event once a later one
 * arrives: {@link IdleReadAfterWriteIT} checks the same promise with nothing written after the event.
 */
class ReadAfterWriteIT {

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedEventIsFoundByTheNextListAndSearch() throws Exception {
        int writers = 4;
        int perWriter = 40;
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"))) {
            Api api = server.api();
            ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            AtomicBoolean writing = new AtomicBoolean(true);
            List<Future<?>> work = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                String agent = "writer-" + w;
                work.add(pool.submit(() -> {
                    for (int j = 0; j < perWriter; j++) {
                        String token = "tok" + agent.replace("-", "") + "x" + j;
                        Reply posted = api.post(j % 5 == 0 ? "/v1/batch" : "/v1/events", j % 5 == 0
                                ? "[{\"agent_id\":\"" + agent + "\",\"action_input\":{\"t\":\"" + token + "\"}}]"
                                : "{\"agent_id\":\"" + agent + "\",\"action_input\":{\"t\":\"" + token + "\"}}");
                        JsonNode event = j % 5 == 0 ? posted.json().get(0).get("event") : posted.json();
                        String id = event.get("id").asText();
                        Reply listed = api.get("/v1/events?agent_id=" + agent + "&limit=1");
                        if (!listed.header("X-Total-Count").equals(Integer.toString(j + 1))
                                || !listed.json().get(0).get("id").asText().equals(id)) {
                            failures.add("list after " + id + ": " + listed.header("X-Total-Count") + " " + listed.body());
                        }
                        Reply found = api.get("/v1/search?q=" + token);
                        if (found.status() != 200 || found.json().get("total").asLong() != 1) {
                            failures.add("search for " + token + ": " + found.body());
                        }
                        Reply byId = api.get("/v1/search?q=id:" + id);
                        if (byId.json().get("total").asLong() != 1) {
                            failures.add("search by id " + id + ": " + byId.body());
                        }
                    }
                    return null;
                }));
            }
            for (int r = 0; r < 2; r++) {
                work.add(pool.submit(() -> {
                    long seen = 0;
                    while (writing.get()) {
                        long treeSize = api.get("/v1/merkle/root").json().get("tree_size").asLong();
                        long total = Long.parseLong(api.get("/v1/events?limit=1").header("X-Total-Count"));
                        if (total < treeSize || total < seen) {
                            failures.add("listing saw " + total + " events after the tree had " + treeSize
                                    + " (and an earlier listing " + seen + ")");
                        }
                        seen = total;
                    }
                    return null;
                }));
            }
            for (int w = 0; w < writers; w++) {
                work.get(w).get();
            }
            writing.set(false);
            for (Future<?> f : work) {
                f.get();
            }
            pool.shutdown();
            assertThat(failures).isEmpty();
            assertThat(api.get("/v1/events?limit=1").header("X-Total-Count")).isEqualTo(Integer.toString(writers * perWriter));
        }
    }
}
