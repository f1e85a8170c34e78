package io.trailproof.console;

import io.trailproof.testing.Api;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console with API keys configured (src/site/console.md): the pages load without a key, the first
 * API call's 401 opens the key prompt with the server's sentence, the key typed there is kept in
 * sessionStorage for the tab and sent as a Bearer header; a wrong key is a 401 handled the same way.
 */
class ConsoleAuthIT {

    private static final String KEY = "console-auth-test-key-0123456789abcdef";

    @TempDir
    static Path dir;

    private static InProcessServer server;
    private static Browser browser;
    private static String ui;

    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"), "auth.api-keys", KEY + ":admin");
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
