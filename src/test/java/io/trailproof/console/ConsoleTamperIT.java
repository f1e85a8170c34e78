package io.trailproof.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.testing.Api;
import io.trailproof.testing.Browser;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.LogSurgeon;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An event changed on disk while the server was stopped (as ledger/TamperDetectionIT does it:
 * frames rewritten with valid CRCs) shows as a failure in the browser: the console recomputes
 * the hash of what the server now returns and finds it is not the hash the tree holds.
 */
class ConsoleTamperIT {

    @TempDir
    Path dir;

    @Test
    void anEventChangedOnDiskFailsVerificationInTheBrowser() throws Exception {
        JsonNode victim;
        JsonNode bystander;
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"))) {
            Api api = server.api();
            for (int i = 1; i <= 3; i++) {
                api.post("/v1/events", "{\"agent_id\":\"victim\",\"action_name\":\"transfer\",\"action_input\":{\"amount\":"
                        + (i * 100) + "}}");
            }
            victim = api.get("/v1/search?q=sequence:2&agent_id=victim").json().get("results").get(0);
            bystander = api.post("/v1/events", "{\"agent_id\":\"bystander\",\"action_name\":\"read\"}").json();
        }
        int index = victim.get("log_index").asInt();
        LogSurgeon.rewrite(LogSurgeon.onlySegment(dir.resolve("data")), records -> {
            try {
                ObjectNode e = (ObjectNode) Api.JSON.readTree(records.get(index));
                ((ObjectNode) e.get("action_input")).put("amount", 1_000_000);
                records.set(index, Rfc8785.canonicalize(e));
            } catch (IOException ex) {
                throw new RuntimeException(ex);
            }
            return records;
        });

        try (InProcessServer server = InProcessServer.start(dir.resolve("data"));
             Browser browser = Browser.start(Files.createDirectories(dir.resolve("downloads")))) {
            String ui = server.api().base() + "/ui/";
            browser.open(ui + "?q=transfer&event=" + victim.get("id").asText());

            var status = browser.visible("#verify-status[data-ok]");
            assertThat(status.getAttribute("data-ok")).isEqualTo("false");
            assertThat(status.getText()).startsWith("✗ verification failed: hash mismatch: the event's content hashes to ")
                    .endsWith("but its hash field says " + victim.get("hash").asText()
                            + "; the event was changed after it was recorded");
            assertThat(browser.visible("#verification .checks").getText()).contains("✗ inclusion proof");
            assertThat(browser.visible("#detail .json").getText()).contains("1000000");
            browser.screenshot("tampered-event");

            // An event of another agent still verifies.
            browser.open(ui + "?q=read&event=" + bystander.get("id").asText());
            assertThat(browser.visible("#verify-status[data-ok]").getAttribute("data-ok")).isEqualTo("true");

            // The agents page says the same through the server's verification.
            browser.open(ui + "?view=agents");
            var row = browser.visible("#agents-body tr[data-agent=victim]");
            row.findElement(By.cssSelector("button.verify")).click();
            browser.await(d -> browser.text("#agents-body tr[data-agent=victim] .verify-result")
                    .equals("✗ invalid: hash mismatch at sequence 2 (1 events verified before it)"));
            assertThat(browser.text("#agents-body tr[data-agent=victim] .chain")).startsWith("BROKEN");
        }
    }
}
