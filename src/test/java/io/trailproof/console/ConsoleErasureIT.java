package io.trailproof.console;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Browser;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.WebElement;

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

            // Erased with the default fields, an event has no timestamp left: its row shows its
            // recorded_at, marked, and the time histogram still draws (it used to vanish when the
            // newest match was such an event).
            JsonNode bare = api.post("/v1/events", "{\"agent_id\":\"subject\",\"action_name\":\"lookup\"}").json();
            String bareId = bare.get("id").asText();
            assertThat(api.post("/v1/admin/erasures", "{\"event_ids\":[\"" + bareId
                    + "\"],\"reason\":\"subject request\"}").status()).isEqualTo(200);
            assertThat(api.get("/v1/events/" + bareId).json().has("timestamp")).isFalse();
            browser.open(server.api().base() + "/ui/?q=agent_id:subject");
            browser.await(d -> !browser.all("#histogram .bar:not(.empty)").isEmpty());
            WebElement time = browser.visible("#results li.result[data-id='" + bareId + "'] .time");
            assertThat(time.getText()).contains("recorded");
            assertThat(time.getAttribute("title")).isEqualTo("timestamp erased; recorded at "
                    + bare.get("recorded_at").asText());
            assertThat(browser.all("#histogram .bar:not(.empty)").stream()
                    .mapToInt(b -> Integer.parseInt(b.getAttribute("data-count"))).sum()).isEqualTo(4);
            browser.screenshot("erased-event-time");
        }
    }
}
