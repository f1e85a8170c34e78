package io.trailproof.console;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Browser;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An erased event in the console (src/site/console.md, src/site/erasure.md#verification): the
 * in-browser check does not recompute its hash but says "content erased; hash as committed" and
 * names the erasure, checks its leaf and proof with that hash, and the chain links to its
 * neighbours still hold; the event's facts show the erased state.
 */
class ConsoleErasureIT {

    @TempDir
    Path dir;

    @Test
    void anErasedEventShowsAsErasedAndStillVerifies() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"));
             Browser browser = Browser.start(Files.createDirectories(dir.resolve("downloads")))) {
            Api api = server.api();
            for (int i = 1; i <= 3; i++) {
                api.post("/v1/events", "{\"agent_id\":\"subject\",\"action_name\":\"lookup\",\"action_input\":{\"email\":\"p"
                        + i + "@example.org\"}}");
            }
            JsonNode victim = api.get("/v1/events?agent_id=subject&order=asc").json().get(1);
            JsonNode done = api.post("/v1/admin/erasures", "{\"event_ids\":[\"" + victim.get("id").asText()
                    + "\"],\"fields\":[\"action_input\"],\"reason\":\"subject request\"}").json();
            String erasureId = done.get("erasure_id").asText();

            browser.open(server.api().base() + "/ui/?q=lookup&event=" + victim.get("id").asText());
            var status = browser.visible("#verify-status[data-ok]");
            assertThat(status.getAttribute("data-ok")).isEqualTo("true");
            assertThat(browser.visible("#verification .checks").getText())
                    .contains("content erased; hash as committed " + victim.get("hash").asText())
                    .contains("erasure " + erasureId)
                    .contains("inclusion proof: leaf " + victim.get("log_index").asLong());
            assertThat(browser.visible("#detail .facts").getText()).contains("content erased; hash as committed")
                    .contains(erasureId);
            assertThat(browser.visible("#verification").getText()).contains("The erased content cannot be hashed");
            assertThat(browser.visible("#results li.result.open .erased-badge").getText()).isEqualTo("erased");
            assertThat(browser.visible("#neighbours .checks").getText()).contains("✓ link to previous", "✓ link from next");
            assertThat(browser.visible("#detail .json").getText()).contains("\"erased\"").doesNotContain("p2@example.org");
            browser.screenshot("erased-event");
        }
    }
}
