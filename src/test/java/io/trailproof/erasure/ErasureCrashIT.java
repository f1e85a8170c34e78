package io.trailproof.erasure;

import io.trailproof.testing.ByteSearch;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * kill -9 at every step of an erasure (src/site/erasure.md#crash-safety-of-an-erasure): the real
 * server is made to stop at step k (system property {@code trailproof.testing.pause-erasure-at})
 * and killed there with SIGKILL, or killed right after it answered; then restarted, and each time:
 * the log opens, every other event is served byte for byte as before, the merkle root of the size
 * before is unchanged, the erasure is either fully held (every named event erased in the log, gone
 * from search, no byte of its content anywhere in the data directory, recorded once) or not at all,
 * an erasure whose answer was received is complete, and no pending marker is left.
 *
 * <p>By default three steps spread over the sequence run (the first, one in the middle of the log rewrite, and
 * after the answer), all of them in the nightly profile (src/site/testing.md#nightly-profile);
 * {@code -Dtrailproof.erasure-crash.steps=N} runs N of them (all with {@value #ALL}); {@code -Dtrailproof.erasure-crash.only=STEP,...} runs the ones named.
 */
@Order(RunOrder.LONG)
class ErasureCrashIT {

    /** Every step, in the order an erasure passes them; "answered" kills after the answer arrived. */
    private static final List<String> STEPS = List.of("erasure-started", "erasure-recorded", "segment-written:1",
            "segment-renamed:1", "segment-written:2", "segment-renamed:2", "log-rewritten", "index-purged",
            "erasure-settled", "answered");
    private static final int ALL = 10;
    private static final int RUN = Math.min(ALL, Integer.getInteger("trailproof.erasure-crash.steps", 3));

    @TempDir
    Path dir;

    @Test
    void aKillAtAnyStepLeavesTheErasureWholeOrAbsentAndEveryOtherEventIntact() throws Exception {
        Path config = dir.resolve("erasure-crash.properties");
        // Small segments: one erasure rewrites several of them, so there are kills between renames.
        Files.writeString(config, "log.segment-bytes=16384\nrecovery.snapshot-interval-events=64\n");
        List<String> steps = new ArrayList<>();
        for (int i = 0; i < RUN; i++) {
            steps.add(STEPS.get(RUN == 1 ? ALL - 1 : (int) Math.round(i * (ALL - 1) / (double) (RUN - 1))));
        }
        String only = System.getProperty("trailproof.erasure-crash.only");
        if (only != null) {
            steps = List.of(only.split(","));
        }
        List<String> outcomes = new ArrayList<>();
        for (String step : steps) {
            outcomes.add(step + " -> " + killAt(step, config));
        }
        System.out.println("ErasureCrashIT: " + String.join(", ", outcomes));
    }


    /** The other agent's events, all in one page, oldest first. */
    private static final String KEPT = "/v1/events?agent_id=keeper&order=asc&limit=1000";

    /** Every tenth of {@code ids}: the events also read one by one, by id, before and after the kill. */
    private static List<String> sample(Collection<String> ids) {
        List<String> out = new ArrayList<>();
        int i = 0;
        for (String id : ids) {
            if (i++ % 10 == 0) {
                out.add(id);
            }
        }
        return out;
    }

    /** One cycle on a fresh data directory; answers whether the erasure was held after the restart. */
    private String killAt(String step, Path config) throws Exception {
        Path data = dir.resolve("data-" + step.replace(':', '-'));
        String marker = "erasecrashmk" + step.replaceAll("[^a-z0-9]", "");
        Map<String, String> keptBefore = new LinkedHashMap<>();
        String keptListed;
        List<String> targets = new ArrayList<>();
        long sizeBefore;
        String rootBefore;
        boolean answered = false;
        Map<String, String> env = step.equals("answered") ? Map.of()
                : Map.of("TRAILPROOF_JAVA_OPTS", "-Xmx512m -Dtrailproof.testing.pause-erasure-at=" + step);
        try (ServerProcess server = ServerProcess.start(data, env, "--config", config.toString())) {
            Api api = server.api();
            for (int b = 0; b < 6; b++) {
                StringBuilder batch = new StringBuilder("[");
                for (int i = 0; i < 40; i++) {
                    int n = b * 40 + i;
                    boolean target = n % 3 == 0;
                    batch.append(i == 0 ? "" : ",").append("{\"agent_id\":\"").append(target ? "subject" : "keeper")
                            .append("\",\"session_id\":\"s").append(n).append("\",\"action_input\":{\"text\":\"")
                            .append(target ? marker + n : "keepcrash" + n).append(" padding padding padding\"}}");
                }
                Api.Reply r = api.post("/v1/batch", batch.append("]").toString());
                assertThat(r.status()).as(r.body()).isEqualTo(201);
                for (JsonNode item : r.json()) {
                    JsonNode e = item.get("event");
                    if (e.get("agent_id").asText().equals("subject")) {
                        targets.add(e.get("id").asText());
                    } else {
                        keptBefore.put(e.get("id").asText(), null);
                    }
                }
            }
            keptListed = api.get(KEPT).body();
            assertThat(Api.JSON.readTree(keptListed)).hasSize(keptBefore.size());
            for (String id : sample(keptBefore.keySet())) {
                keptBefore.put(id, api.get("/v1/events/" + id).body());
            }
            JsonNode root = api.get("/v1/merkle/root").json();
            sizeBefore = root.get("tree_size").asLong();
            rootBefore = root.get("root").asText();
            CompletableFuture<Api.Reply> erasure = CompletableFuture.supplyAsync(() -> {
                try {
                    return api.post("/v1/admin/erasures", "{\"agent_id\":\"subject\",\"reason\":\"crash test\"}");
                } catch (Exception e) {
                    return null;   // the kill took the answer
                }
            });
            if (step.equals("answered")) {
                Api.Reply r = erasure.get();
                assertThat(r.status()).as(r.body()).isEqualTo(200);
                assertThat(r.json().get("erased").asLong()).isEqualTo(targets.size());
                answered = true;
            } else {
                assertThat(server.awaitOutput("erasure paused at " + (step.contains(":") ? step : step + ":1"), 120_000))
                        .as("the server paused at " + step + ":\n" + server.outputSoFar()).isTrue();
            }
            server.kill();
        }
        try (ServerProcess server = ServerProcess.start(data, "--config", config.toString())) {
            Api api = server.api();
            assertThat(Files.exists(data.resolve("erasure-pending"))).as("pending marker left").isFalse();
            assertThat(api.get(KEPT).body()).as("the other agent's events, byte for byte").isEqualTo(keptListed);
            for (String id : sample(keptBefore.keySet())) {
                assertThat(api.get("/v1/events/" + id).body()).as("event " + id).isEqualTo(keptBefore.get(id));
            }
            assertThat(api.get("/v1/merkle/root?tree_size=" + sizeBefore).json().get("root").asText())
                    .isEqualTo(rootBefore);
            int erased = 0;
            JsonNode subject = api.get("/v1/events?agent_id=subject&order=asc&limit=1000").json();
            List<String> listed = new ArrayList<>();
            subject.forEach(e -> listed.add(e.get("id").asText()));
            assertThat(listed).as("the erasure's events, listed").containsExactlyElementsOf(targets);
            for (JsonNode e : subject) {
                if (e.has("erased")) {
                    erased++;
                    assertThat(e.has("action_input")).isFalse();
                } else {
                    assertThat(e.at("/action_input/text").asText()).startsWith(marker);
                }
            }
            JsonNode erasures = api.get("/v1/admin/erasures").json();
            boolean held = erased > 0;
            if (held) {
                assertThat(erased).as("all or nothing at " + step).isEqualTo(targets.size());
                assertThat(erasures.size()).isEqualTo(1);
                assertThat(api.get("/v1/search?q=" + marker + "0").json().get("total").asLong()).isZero();
                assertThat(ByteSearch.filesContaining(data, marker)).as("content left on disk after " + step).isEmpty();
                JsonNode v = api.get("/v1/verify?agent_id=subject").json();
                assertThat(v.get("valid").asBoolean()).as(v.toString()).isTrue();
                assertThat(v.get("erased").asLong()).isEqualTo(targets.size());
            } else {
                assertThat(answered).as("an answered erasure was undone").isFalse();
                assertThat(erasures.size()).as("an erasure recorded but not applied at " + step).isZero();
                assertThat(api.get("/v1/search?q=" + marker + "0").json().get("total").asLong()).isEqualTo(1);
            }
            // once the erasure event is durable, the restart completes it
            if (STEPS.indexOf(step) >= 1) {
                assertThat(held).as("a recorded erasure completed at the restart after " + step).isTrue();
            }
            assertThat(api.get("/v1/verify?agent_id=keeper").json().get("valid").asBoolean()).isTrue();
            // erasing again changes nothing that was erased
            JsonNode again = api.post("/v1/admin/erasures", "{\"agent_id\":\"subject\",\"reason\":\"again\","
                    + "\"dry_run\":true}").json();
            assertThat(again.get("already_erased").asLong()).isEqualTo(held ? targets.size() : 0);
            assertThat(server.stop()).isZero();
            return held ? "held" : "absent";
        }
    }
}
