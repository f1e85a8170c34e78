package io.trailproof.erasure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.SseClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Every read path shows an erased event as erased (src/site/erasure.md#verification): listings in
 * JSON, NDJSON and CSV (its erased column), search results, the live stream's catch-up and the evidence package, on an
 * otherwise idle server, and none of them carries a byte of the erased content.
 */
class ErasureReadPathsIT {

    private static final String SECRET = "uniqueerasedvalue4711";

    @TempDir
    Path dir;

    @Test
    void listingsSearchStreamAndExportShowTheErasedForm() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            Api api = s.api();
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(api.post("/v1/events", "{\"agent_id\":\"subject\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"lookup\","
                        + "\"action_input\":{\"email\":\"" + (i == 1 ? SECRET : "kept" + i) + "\"}}").json().get("id").asText());
            }
            String erasedId = ids.get(1);
            Api.Reply done = api.post("/v1/admin/erasures", "{\"event_ids\":[\"" + erasedId + "\"],"
                    + "\"fields\":[\"action_input\"],\"reason\":\"subject request\"}");
            assertThat(done.status()).as(done.body()).isEqualTo(200);
            String erasureId = done.json().get("erasure_id").asText();

            // Listings: JSON, NDJSON, CSV.
            JsonNode list = api.get("/v1/events?agent_id=subject&order=asc").json();
            assertThat(list).hasSize(3);
            assertErased(list.get(1), erasedId, erasureId);
            assertThat(list.get(0).has("erased")).isFalse();
            Api.Reply ndjson = api.get("/v1/events?agent_id=subject&order=asc&format=ndjson");
            assertThat(ndjson.body()).contains(erasedId).contains("kept0").doesNotContain(SECRET);
            // CSV: the last column, erased, holds the erasure's id.
            String[] rows = api.get("/v1/events?agent_id=subject&order=asc&format=csv").body().split("\r\n");
            assertThat(rows[0]).endsWith(",hash,erased");
            assertThat(rows[2]).startsWith("1," + erasedId + ",").endsWith("," + erasureId);
            assertThat(rows[1]).endsWith(",");
            JsonNode ndjsonLine = Api.JSON.readTree(ndjson.body().lines().toList().get(1));
            assertErased(ndjsonLine, erasedId, erasureId);

            // Search results: the event is still found by what it kept, in its erased form.
            JsonNode found = api.get("/v1/search?q=action_name:lookup&agent_id=subject&sort=timestamp").json();
            assertThat(found.get("total").asInt()).isEqualTo(3);
            JsonNode hit = null;
            for (JsonNode r : found.get("results")) {
                if (r.get("id").asText().equals(erasedId)) {
                    hit = r;
                }
            }
            assertThat(hit).isNotNull();
            assertErased(hit, erasedId, erasureId);
            assertThat(found.toString()).doesNotContain(SECRET);
            assertThat(api.get("/v1/search?q=" + SECRET).json().get("total").asInt()).isZero();

            // The live stream's catch-up from the start of the log.
            try (SseClient sse = SseClient.open(s.server().port(), "/v1/stream?from=0&agent_id=subject")) {
                sse.timeout(10_000);
                JsonNode streamed = null;
                while (streamed == null) {
                    SseClient.Frame f = sse.next();
                    assertThat(f).isNotNull();
                    if (f.isEvent() && f.data() != null && f.data().contains(erasedId)) {
                        streamed = Api.JSON.readTree(f.data());
                        assertThat(f.data()).doesNotContain(SECRET);
                    }
                }
                assertErased(streamed, erasedId, erasureId);
            }

            // The evidence package carries it as stored, and the erasure that names it.
            Api.Reply export = api.get("/v1/export?agent_id=subject");
            assertThat(export.status()).isEqualTo(200);
            JsonNode pack = Api.JSON.readTree(export.body());
            assertErased(pack.get("events").get(1), erasedId, erasureId);
            assertThat(pack.get("erasures")).hasSize(1);
            assertThat(pack.at("/erasures/0/event/id").asText()).isEqualTo(erasureId);
            assertThat(pack.at("/erasures/0/proof/leaf_index").asLong()).isEqualTo(done.json().get("log_index").asLong());
            assertThat(export.body()).doesNotContain(SECRET);

            // GET /v1/verify counts it.
            JsonNode verify = api.get("/v1/verify?agent_id=subject").json();
            assertThat(verify.get("valid").asBoolean()).isTrue();
            assertThat(verify.get("erased").asInt()).isEqualTo(1);
        }
    }

    private static void assertErased(JsonNode event, String id, String erasureId) {
        assertThat(event.get("id").asText()).isEqualTo(id);
        assertThat(event.at("/erased/erasure_id").asText()).isEqualTo(erasureId);
        assertThat(event.at("/erased/fields/0").asText()).isEqualTo("action_input");
        assertThat(event.has("action_input")).isFalse();
        assertThat(event.get("action_name").asText()).isEqualTo("lookup");
        assertThat(event.get("hash").asText()).hasSize(64);
    }
}
