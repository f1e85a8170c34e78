package io.trailproof.cluster;

import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.KafkaTestCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * In cluster mode erasure is refused (src/site/erasure.md#copies-outside-the-data-directory): both
 * endpoints answer 409, before reading the body, and the event keeps its content.
 */
class ClusterErasureRefusalIT {

    @TempDir
    Path dir;

    @Test
    void bothEndpointsAnswer409AndNothingIsErased() throws Exception {
        try (KafkaTestCluster kafka = KafkaTestCluster.start();
             InProcessServer node = ClusterNodes.start(dir.resolve("n1"), kafka.bootstrapServers(), "n1",
                     "trailproof-erasure-it", "PT10S")) {
            Api api = node.api();
            Api.Reply stored = api.post("/v1/events", ClusterNodes.event("subject", 1));
            assertThat(stored.status()).as(stored.body()).isEqualTo(201);
            String id = stored.json().get("id").asText();

            Api.Reply erase = api.post("/v1/admin/erasures", "{\"event_ids\":[\"" + id + "\"],\"reason\":\"r\"}");
            assertThat(erase.status()).isEqualTo(409);
            assertThat(erase.json().get("error").asText()).contains("not available in cluster mode")
                    .contains("nothing was erased");
            Api.Reply dry = api.post("/v1/admin/erasures", "{\"event_ids\":[\"" + id + "\"],\"reason\":\"r\",\"dry_run\":true}");
            assertThat(dry.status()).isEqualTo(409);
            Api.Reply list = api.get("/v1/admin/erasures");
            assertThat(list.status()).isEqualTo(409);
            for (Api.Reply r : new Api.Reply[] {erase, dry, list}) {
                assertThat(ClusterNodes.CONTRACT.validate(ClusterNodes.CONTRACT.document().at("/components/schemas/Error"),
                        r.json())).isEmpty();
            }

            Api.Reply after = api.get("/v1/events/" + id);
            assertThat(after.json().has("erased")).isFalse();
            assertThat(after.json().at("/metadata/i").asInt()).isEqualTo(1);
        }
    }
}
