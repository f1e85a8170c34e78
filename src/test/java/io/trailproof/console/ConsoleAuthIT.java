package io.trailproof.console;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.Browser;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console with API keys configured (src/site/console.md): the pages load without a key, the first
 * API call's 401 opens the key prompt with the server's sentence, the key typed there is kept in
 * sessionStorage for the tab and sent as a Bearer header; a wrong key is a 401 handled the same way.
 * The approvals view shows its buttons only to a key that may approve, and an approval given there
 * lets the call bind to its decision.
 */
class ConsoleAuthIT {

    private static final String KEY = "console-auth-test-key-0123456789abcdef";
    private static final String READER = "console-auth-reader-key-0123456789abcd";

    @TempDir
    static Path dir;

    private static InProcessServer server;
    private static Browser browser;
    private static String ui;

    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"), "auth.api-keys", KEY + ":admin," + READER + ":read",
                // Counts of search results here are the agents' own; records of the searches would add to them.
                "access-trail.enabled", "false");
        Api api = server.api();
        ui = api.base() + "/ui/";
        HttpRequest.Builder post = HttpRequest.newBuilder(URI.create(api.base() + "/v1/events"))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"agent_id\":\"keyed-agent\",\"action_name\":\"guarded_call\"}"));
        assertThat(api.send(post).status()).isEqualTo(201);
        browser = Browser.start(Files.createDirectories(dir.resolve("downloads")));
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.close();
        }
        server.close();
    }

    private static Api.Reply send(String method, String path, String json) throws Exception {
        Api api = server.api();
        return api.send(HttpRequest.newBuilder(URI.create(api.base() + path)).header("Authorization", "Bearer " + KEY)
                .header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json)));
    }

    private static JsonNode get(String path) throws Exception {
        Api api = server.api();
        return api.send(HttpRequest.newBuilder(URI.create(api.base() + path)).header("Authorization", "Bearer " + KEY)
                .GET()).json();
    }

    @Test
    void aPendingDecisionIsApprovedInTheConsoleAndTheCallThenBindsWithoutAViolation() throws Exception {
        assertThat(send("PUT", "/v1/admin/gate-policy", """
                {"policies": [{"name": "payments", "rules": [{"name": "transfers-need-a-person", "type": "absence",
                  "deny": "transfer_funds", "effect": "ask", "reason": "transfers need a <b>person</b>"}]}]}""")
                .status()).isEqualTo(201);
        assertThat(send("POST", "/v1/events", "{\"agent_id\":\"payer\",\"action_name\":\"look_up_invoice\"}").status())
                .isEqualTo(201);
        String input = "{\"to\":\"<img src=x onerror=\\\"window.__pwned=1\\\">\",\"amount\":100}";
        JsonNode decision = send("POST", "/v1/decisions", "{\"agent_id\":\"payer\",\"action_name\":\"transfer_funds\","
                + "\"action_input\":" + input + "}").json();
        assertThat(decision.get("decision").asText()).isEqualTo("ask");
        String id = decision.get("decision_id").asText();

        // A key without the approve role: one sentence, no list, no buttons.
        browser.open(ui + "?view=approvals");
        browser.script("sessionStorage.setItem('trailproof.api-key', arguments[0])", READER);
        browser.driver().navigate().refresh();
        assertThat(browser.visible("#approvals-no-role").getText()).contains("approve role");
        assertThat(browser.all("#approvals-list .approve")).isEmpty();

        browser.script("sessionStorage.setItem('trailproof.api-key', arguments[0])", KEY);
        browser.driver().navigate().refresh();
        String card = "#approvals-list li.approval[data-decision='" + id + "']";
        browser.visible(card + " .approve");
        Await.untilTrue("the agent's recent events", Duration.ofSeconds(20),
                () -> browser.text(card + " .recent-events").contains("look_up_invoice"));
        String shown = browser.text(card);
        assertThat(shown).contains("transfer_funds").contains("payer").contains("transfers-need-a-person")
                .contains("transfers need a <b>person</b>").contains("<img src=x onerror=");
        assertThat(browser.script("return document.querySelector('#approvals-list img, #approvals-list b') === null"
                + " && window.__pwned === undefined")).isEqualTo(true);
        browser.screenshot("approvals");
        browser.visible(card + " input.comment").sendKeys("invoice checked");
        browser.visible(card + " .approve").click();
        assertThat(browser.visible(card + " .approval-result[data-answered=approved]").getText()).startsWith("✓ approved");

        assertThat(get("/v1/decisions/" + id).get("state").asText()).isEqualTo("approved");
        assertThat(send("POST", "/v1/events", "{\"agent_id\":\"payer\",\"action_type\":\"TOOL_CALL\","
                + "\"action_name\":\"transfer_funds\",\"decision_id\":\"" + id + "\",\"action_input\":" + input + "}")
                .status()).isEqualTo(201);
        List<String> types = new ArrayList<>();
        get("/v1/events?agent_id=payer&order=asc").forEach(e -> types.add(e.path("action_type").asText("")));
        assertThat(types).containsExactly("", "DECISION", "APPROVAL", "TOOL_CALL");

        // The decision's detail links to its approval and to the call bound to it.
        browser.open(ui + "?event=" + id);
        assertThat(browser.visible("#gate .approval-link").getText()).contains("approved by").contains("invoice checked");
        assertThat(browser.visible("#gate .call-link").getText()).contains("transfer_funds");
        browser.visible("#gate .call-link a").click();
        assertThat(browser.visible("#gate .decision-link a").getText()).isEqualTo("the decision this call is bound to");
    }

    @Test
    void theKeyIsAskedForOnA401AndKeptForTheTab() throws Exception {
        browser.open(ui + "?q=guarded_call");
        browser.script("sessionStorage.clear()");
        browser.driver().navigate().refresh();

        assertThat(browser.visible("#key-dialog[open] #key-reason").getText())
                .isEqualTo("this request needs an API key: send the header Authorization: Bearer <key>");
        browser.screenshot("api-key-prompt");
        browser.visible("#key-input").sendKeys(KEY);
        browser.visible("#key-save").click();

        assertThat(browser.visible("#total[data-total]").getAttribute("data-total")).isEqualTo("1");
        assertThat(browser.script("return sessionStorage.getItem('trailproof.api-key')")).isEqualTo(KEY);
        assertThat(browser.script("return localStorage.getItem('trailproof.api-key')")).isNull();
        assertThat(browser.driver().getCurrentUrl()).doesNotContain(KEY);
        // Reloading keeps the key for the tab: no prompt.
        browser.driver().navigate().refresh();
        assertThat(browser.visible("#total[data-total]").getAttribute("data-total")).isEqualTo("1");
        assertThat(browser.script("return document.getElementById('key-dialog').open")).isEqualTo(false);
    }

    @Test
    void aWrongKeyIsA401ThatAsksAgain() throws Exception {
        browser.open(ui + "?view=agents");
        browser.script("sessionStorage.setItem('trailproof.api-key', 'not-the-key')");
        browser.driver().navigate().refresh();

        assertThat(browser.visible("#key-dialog[open] #key-reason").getText())
                .startsWith("the API key is not valid");
        assertThat(browser.text("#agents-error")).contains("The agents cannot be listed: the API key is not valid");
        browser.visible("#key-input").sendKeys(KEY);
        browser.visible("#key-save").click();
        assertThat(browser.visible("#agents-body tr[data-agent=keyed-agent]").getText()).contains("keyed-agent");
        assertThat(browser.text("#agents-error")).isEmpty();
    }
}
