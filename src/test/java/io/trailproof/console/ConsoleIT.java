package io.trailproof.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.Browser;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.TestTsa;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The investigator console (src/site/console.md) in headless Chromium against the real server: one server
 * and one browser for every scenario of the class. Each scenario opens its own address, so none
 * depends on another's state.
 */
@Order(RunOrder.LONGEST)
class ConsoleIT {

    @TempDir
    static Path dir;

    private static TestTsa tsa;
    private static InProcessServer server;
    private static Api api;
    private static Browser browser;
    private static String ui;

    /** 40 events of two agents over ten days (2026-03-01..10); every fourth is an error with "timeout". */
    @BeforeAll
    static void start() throws Exception {
        tsa = TestTsa.start();
        server = InProcessServer.start(dir.resolve("data"), "timestamp.default-tsa-url", tsa.url(),
                "timestamp.trust-anchors", tsa.writeRootPem(dir.resolve("ca.pem")).toString());
        api = server.api();
        ui = api.base() + "/ui/";
        ArrayNode batch = Api.JSON.createArrayNode();
        for (int i = 0; i < 40; i++) {
            ObjectNode e = batch.addObject();
            e.put("agent_id", i % 2 == 0 ? "alice-agent" : "bob-agent");
            e.put("action_type", i % 3 == 0 ? "LLM_CALL" : "TOOL_CALL");
            e.put("action_name", i % 3 == 0 ? "summarise_report" : "search_database");
            e.put("action_status", i % 4 == 0 ? "error" : "success");
            if (i % 4 == 0) {
                e.put("error_message", "timeout while reading the ledger after " + (i * 10) + " ms");
            }
            e.put("source", i % 2 == 0 ? "sdk" : "otlp");
            e.putObject("labels").put("env", i % 5 == 0 ? "staging" : "prod");
            e.putObject("action_input").put("query", "revenue Q" + (i % 4 + 1));
            e.put("timestamp", String.format("2026-03-%02dT10:%02d:00Z", 1 + i / 4, i));
        }
        assertThat(api.post("/v1/batch", batch.toString()).status()).isEqualTo(201);
        browser = Browser.start(Files.createDirectories(dir.resolve("downloads")));
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.close();
        }
        if (server != null) {
            server.close();
        }
        if (tsa != null) {
            tsa.close();
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static long apiTotal(String query) throws Exception {
        return api.get("/v1/search?limit=1&q=" + encode(query)).json().get("total").asLong();
    }

    /** Opens the console at ?QUERY and waits for the results to be rendered. */
    private static WebElement openSearch(String query) {
        browser.open(ui + query);
        return browser.visible("#total[data-total]");
    }

    private static List<String> resultIds() {
        return browser.all("#results li.result").stream().map(li -> li.getAttribute("data-id")).toList();
    }

    @Test
    void searchShowsHighlightsAndTheExactTotal() throws Exception {
        WebElement total = openSearch("?q=timeout");

        assertThat(total.getAttribute("data-total")).isEqualTo(Long.toString(apiTotal("timeout"))).isEqualTo("10");
        assertThat(total.getText()).isEqualTo("10 matching events");
        assertThat(resultIds()).hasSize(10);
        List<WebElement> marks = browser.all("#results .fragment em");
        assertThat(marks).isNotEmpty().allSatisfy(em -> assertThat(em.getText()).isEqualToIgnoringCase("timeout"));
        assertThat(browser.severeLogs()).isEmpty();
        if (facetsSupported()) {
            browser.visible("#facets .facet-value");
            browser.visible("#histogram .bar");
        }
        browser.screenshot("search");
    }

    @Test
    void pagingShowsEveryMatchOncePageByPage() {
        openSearch("?q=revenue&sort=timestamp");
        assertThat(browser.visible("#page-info").getText()).isEqualTo("page 1 of 2");
        List<String> first = resultIds();
        browser.visible("#page-next").click();
        browser.await(d -> d.getCurrentUrl().contains("page=2") && browser.text("#page-info").equals("page 2 of 2"));
        browser.await(d -> resultIds().size() == 15);
        assertThat(first).hasSize(25).doesNotContainAnyElementsOf(resultIds());
    }

    @Test
    void aQuerySyntaxErrorShowsTheServersSentenceUnderTheBox() {
        browser.open(ui);
        WebElement box = browser.visible("#q");
        box.clear();
        box.sendKeys("action_name:(unclosed", Keys.ENTER);
        WebElement error = browser.visible("#query-error");
        assertThat(error.getText()).startsWith("query syntax error");
        assertThat(resultIds()).isEmpty();
    }

    @Test
    void aBadAddressNeverBreaksThePage() {
        browser.open(ui + "?since=yesterday-ish&page=abc&sort=sideways&view=nowhere&label.=x&event="
                + encode("../../v1/agents"));
        assertThat(browser.visible("#query-error").getText()).startsWith("parameter since must be an ISO 8601 date-time");
        assertThat(browser.visible("#detail").getText()).contains("The event cannot be shown");
        browser.open(ui + "?q=" + encode("\"unclosed") + "&event=" + encode("<img src=x onerror=window.__xss=1>"));
        assertThat(browser.visible("#query-error").getText()).isNotEmpty();
        assertThat(browser.visible("#detail").getText()).contains("The event cannot be shown");
        assertThat(browser.script("return window.__xss === undefined")).isEqualTo(true);
        assertThat(browser.severeLogs()).isEmpty();
    }

    private static boolean downloadsSupported() throws Exception {
        return api.get("/v1/search?q=*:*&format=csv").status() == 200;
    }

    @Test
    void theResultsDownloadAsCsvAndNdjson() throws Exception {
        assumeTrue(downloadsSupported(), "GET /v1/search has no format=csv|ndjson in this build");
        openSearch("?q=timeout&sort=timestamp");
        browser.visible("#download-csv").click();
        Path csv = browser.downloads().resolve("trailproof-search.csv");
        browser.await(d -> Files.exists(csv) && browser.text("#notice").startsWith("Downloaded trailproof-search.csv"));
        List<String> rows = Files.readAllLines(csv);
        assertThat(rows.get(0)).startsWith("log_index,id,timestamp,agent_id,sequence,action_type");
        assertThat(rows).hasSize(11);
        browser.visible("#download-ndjson").click();
        Path ndjson = browser.downloads().resolve("trailproof-search.ndjson");
        browser.await(d -> Files.exists(ndjson));
        List<String> lines = Files.readAllLines(ndjson);
        assertThat(lines).hasSize(10).allSatisfy(line -> assertThat(Api.JSON.readTree(line).get("error_message").asText())
                .startsWith("timeout"));
    }

    @Test
    void filtersAndReloadRestoreTheSameViewFromTheAddress() {
        browser.open(ui);
        browser.visible("#q").sendKeys("revenue");
        browser.visible(".filters summary").click();
        browser.visible("#f-agent_id").sendKeys("bob-agent");
        browser.visible("#f-action_status").sendKeys("success");
        browser.visible("#f-label").sendKeys("env=prod");
        browser.visible("#f-sort").sendKeys("newest first");
        browser.visible("#search-form button[type=submit]").click();
        browser.await(d -> d.getCurrentUrl().contains("agent_id=bob-agent"));
        String total = browser.visible("#total[data-total]").getAttribute("data-total");
        List<String> ids = resultIds();
        assertThat(ids).isNotEmpty();
        browser.all("#results li.result a").get(1).click();
        browser.await(d -> d.getCurrentUrl().contains("event=" + ids.get(1)));
        browser.visible("#verify-status[data-ok]");
        String url = browser.driver().getCurrentUrl();
        assertThat(url).contains("q=revenue", "action_status=success", "label.env=prod", "sort=-timestamp");

        browser.driver().navigate().refresh();

        assertThat(browser.visible("#total[data-total]").getAttribute("data-total")).isEqualTo(total);
        assertThat(resultIds()).isEqualTo(ids);
        assertThat(browser.visible("#q").getAttribute("value")).isEqualTo("revenue");
        assertThat(browser.visible("#results li.result.open").getAttribute("data-id")).isEqualTo(ids.get(1));
        assertThat(browser.visible("#detail h2").getText()).startsWith("bob-agent #");
        assertThat(browser.all("#chips .chip")).hasSize(3);
        // A shared link in a fresh tab shows the same.
        browser.open("about:blank");
        browser.open(url);
        assertThat(browser.visible("#total[data-total]").getAttribute("data-total")).isEqualTo(total);
        assertThat(browser.visible("#results li.result.open").getAttribute("data-id")).isEqualTo(ids.get(1));
    }

    @Test
    void eventDetailIsVerifiedInTheBrowser() throws Exception {
        JsonNode event = api.get("/v1/search?limit=1&sort=timestamp&q=" + encode("agent_id:alice-agent AND sequence:5"))
                .json().get("results").get(0);
        openSearch("?q=timeout&event=" + event.get("id").asText());

        WebElement status = browser.visible("#verify-status[data-ok]");
        assertThat(status.getAttribute("data-ok")).isEqualTo("true");
        assertThat(status.getText()).isEqualTo("✓ verified in this browser");
        assertThat(browser.visible("#verification .checks").getText())
                .contains("event hash: RFC 8785 + SHA-256 of the event gives its hash " + event.get("hash").asText())
                .contains("inclusion proof: leaf " + event.get("log_index").asLong());
        // Chain neighbours: #4 and #6, both links checked.
        browser.visible("#neighbours a.previous");
        assertThat(browser.visible("#neighbours a.previous").getText()).startsWith("← #4");
        assertThat(browser.visible("#neighbours a.next").getText()).startsWith("#6");
        assertThat(browser.visible("#neighbours .checks").getText()).contains("✓ link to previous", "✓ link from next");
        // The stored event as collapsible JSON.
        assertThat(browser.visible("#detail .json").getText()).contains("\"agent_id\"", "\"alice-agent\"");
        browser.screenshot("event-detail");
        browser.visible("#neighbours a.next").click();
        browser.await(d -> browser.visible("#detail h2").getText().equals("alice-agent #6"));
        assertThat(browser.visible("#verify-status[data-ok]").getAttribute("data-ok")).isEqualTo("true");
    }

    @Test
    void agentsPageVerifiesAndExports() throws Exception {
        browser.open(ui + "?view=agents");
        WebElement row = browser.visible("#agents-body tr[data-agent=alice-agent]");
        assertThat(row.getText()).contains("alice-agent", "20", "valid");
        row.findElement(By.cssSelector("button.verify")).click();
        browser.await(d -> row.findElement(By.cssSelector(".verify-result")).getText()
                .startsWith("✓ valid: 20 events verified"));
        browser.screenshot("agents");

        row.findElement(By.cssSelector("button.export")).click();
        browser.await(d -> row.findElement(By.cssSelector(".verify-result")).getText()
                .startsWith("downloaded evidence-alice-agent.json"));
        Path file = browser.downloads().resolve("evidence-alice-agent.json");
        browser.await(d -> Files.exists(file));
        JsonNode evidence = Api.JSON.readTree(Files.readAllBytes(file));
        assertThat(evidence.toString()).contains("alice-agent");
    }

    /**
     * The coverage view (src/site/console.md): a stream that ended with a number missing (a GAP the
     * service records at once), an LLM call the gateway saw and the SDK did not, reached from the
     * agents view; links open the GAP event.
     */
    @Test
    void theCoverageViewShowsPathsGapsAndCrossChecks() throws Exception {
        String t = "2026-03-05T12:00:00Z";
        String asked = "\"action_input\":{\"model\":\"m-1\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        String common = "\"agent_id\":\"carol-agent\",\"session_id\":\"carol-1\",\"timestamp\":\"" + t + "\",";
        assertThat(api.post("/v1/batch", "[{" + common + "\"capture_method\":\"python-sdk\",\"action_type\":\"TOOL_CALL\","
                + "\"capture_id\":\"py-c\",\"capture_seq\":1},"
                + "{" + common + "\"capture_method\":\"python-sdk\",\"action_type\":\"LLM_CALL\"," + asked + ","
                + "\"capture_id\":\"py-c\",\"capture_seq\":3,\"capture_last\":true},"
                + "{" + common + "\"capture_method\":\"llm-gateway\",\"action_type\":\"LLM_CALL\"," + asked + "},"
                + "{" + common + "\"capture_method\":\"llm-gateway\",\"action_type\":\"LLM_CALL\","
                + "\"action_input\":{\"model\":\"m-1\",\"messages\":[{\"role\":\"user\",\"content\":\"around the SDK\"}]}}]")
                .status()).isEqualTo(201);
        Await.untilTrue("the GAP of the ended stream", Duration.ofSeconds(60),
                () -> api.get("/v1/events?agent_id=carol-agent&action_type=GAP").json().size() == 1);
        String gapId = api.get("/v1/events?agent_id=carol-agent&action_type=GAP").json().get(0).get("id").asText();

        browser.open(ui + "?view=agents");
        browser.visible("#agents-body tr[data-agent=carol-agent] a.coverage").click();
        browser.await(d -> d.getCurrentUrl().contains("view=coverage") && d.getCurrentUrl().contains("agent_id=carol-agent"));
        WebElement session = browser.visible("#coverage-body .coverage-session[data-session=carol-1]");
        assertThat(browser.visible("#coverage-body tr[data-path=python-sdk]").getText()).contains("2", "LLM_CALL 1", "TOOL_CALL 1");
        assertThat(browser.visible("#coverage-body tr[data-path=llm-gateway]").getText()).contains("2", "LLM_CALL 2");
        WebElement gap = browser.visible("#coverage-body .coverage-gaps tr.gap");
        assertThat(gap.getText()).contains("py-c", "2–2", "open", gapId);
        assertThat(session.findElement(By.cssSelector(".coverage-one-path")).getText()).contains("llm-gateway");
        assertThat(session.findElements(By.cssSelector(".coverage-one-path li"))).hasSize(1);
        browser.screenshot("coverage");
        assertThat(browser.severeLogs()).isEmpty();

        gap.findElement(By.cssSelector("a.hash")).click();
        browser.await(d -> d.getCurrentUrl().contains("event=" + gapId));
        assertThat(browser.visible("#detail").getText()).contains("GAP");
    }

    @Test
    void keyboardMovesThroughResultsAndOpensOne() {
        openSearch("?q=timeout&sort=timestamp");
        List<String> ids = resultIds();
        Actions keys = new Actions(browser.driver());
        keys.sendKeys("/").perform();
        assertThat(browser.script("return document.activeElement.id")).isEqualTo("q");
        keys.sendKeys(Keys.ESCAPE).perform();
        keys.sendKeys("j").sendKeys("j").sendKeys("j").sendKeys("k").perform();
        assertThat(browser.visible("#results li.result.cursor").getAttribute("data-id")).isEqualTo(ids.get(1));
        keys.sendKeys(Keys.ENTER).perform();
        browser.await(d -> d.getCurrentUrl().contains("event=" + ids.get(1)));
        assertThat(browser.visible("#verify-status[data-ok]").getAttribute("data-ok")).isEqualTo("true");
        keys.sendKeys(Keys.ESCAPE).perform();
        browser.await(d -> !d.getCurrentUrl().contains("event="));
    }

    @Test
    void timestampsViewListsThemAndVerifiesTheLatest() throws Exception {
        JsonNode stamp = api.post("/v1/timestamp", "{}").json();
        browser.open(ui + "?view=timestamps");

        assertThat(browser.visible("#timestamp-verification.ok").getText())
                .startsWith("✓ the latest timestamp").contains("tree size " + stamp.get("tree_size").asLong())
                .contains("✓ signature", "✓ message_imprint", "✓ certificate_chain", "✓ consistency");
        assertThat(browser.visible("#timestamps-body").getText()).contains(stamp.get("merkle_root").asText());
        assertThat(browser.visible("#current-root").getText()).startsWith("tree size ");
        // The signed checkpoint is shown exactly when the service has one.
        boolean checkpoint = api.get("/checkpoint").status() == 200;
        browser.await(d -> browser.script("return document.getElementById('checkpoint-section').hidden")
                .equals(!checkpoint));
        if (checkpoint) {
            browser.await(d -> browser.text("#checkpoint-check").startsWith("✓ the checkpoint's root "));
        }
        browser.screenshot("timestamps");
    }

    @Test
    void timeZoneSwitchShowsLocalTimeAndBack() {
        openSearch("?q=timeout&sort=timestamp");
        assertThat(firstTime()).isEqualTo("2026-03-01 10:00:00.000 UTC");
        browser.visible("#tz-toggle").click();
        browser.await(d -> firstTime().matches("2026-03-0\\d \\d\\d:00:00\\.000 [+-]\\d\\d:\\d\\d"));
        browser.visible("#tz-toggle").click();
        browser.await(d -> firstTime().equals("2026-03-01 10:00:00.000 UTC"));
    }

    /** Read in the page: the element is replaced on every render, so a held reference goes stale. */
    private static String firstTime() {
        return String.valueOf(browser.script("const t = document.querySelector('#results li.result .time');"
                + " return t && document.getElementById('total').dataset.total ? t.textContent : '';"));
    }

    @Test
    void liveTailStreamsNewMatchingEventsAndShowsWhenPaused() throws Exception {
        openSearch("?agent_id=carol-agent");
        browser.visible("#tail-toggle").click();
        browser.await(d -> "live".equals(browser.visible("#tail-state").getAttribute("data-state")));
        api.post("/v1/events", "{\"agent_id\":\"carol-agent\",\"action_name\":\"streamed_in\"}");
        api.post("/v1/events", "{\"agent_id\":\"someone-else\",\"action_name\":\"not_for_this_view\"}");
        browser.await(d -> browser.visible("#results li.result.live").getText().contains("streamed_in"));
        assertThat(browser.all("#results li.result.live")).hasSize(1);
        assertThat(browser.text("#live-count")).isEqualTo("+1 live");
        browser.screenshot("live-tail");
        browser.visible("#tail-toggle").click();
        assertThat(browser.visible("#tail-paused").getText()).contains("paused");
        assertThat(browser.visible("#tail-state").getText()).startsWith("PAUSED");
    }

    /** Payloads that would run script or add elements if any text reached the HTML parser. */
    private static final List<String> XSS = List.of(
            "<img src=x onerror=window.__xss=1>",
            "</script><script>window.__xss=2</script>",
            "\"><svg onload=window.__xss=3>",
            "'><iframe src=javascript:window.__xss=4>",
            "<em onmouseover=window.__xss=5>xsscorpus</em>",
            "javascript:window.__xss=6",
            "&lt;b&gt;entity&lt;/b&gt; &amp; <b>bold</b>");

    @Test
    void eventTextIsInertEverywhereItIsShown() throws Exception {
        String agent = "xss-agent <img src=x onerror=window.__xss=7>";
        for (String payload : XSS) {
            ObjectNode e = Api.JSON.createObjectNode();
            e.put("agent_id", agent);
            for (String f : List.of("session_id", "source", "capture_method", "action_type", "action_name", "action_status",
                    "error_message")) {
                e.put(f, payload + " xsscorpus");
            }
            e.putObject("action_input").put(payload, payload + " xsscorpus");
            e.putObject("action_output").putArray("items").add(payload);
            e.putObject("metadata").put("note", payload).putObject(payload).put(payload, payload);
            e.putObject("labels").put("env", payload).put("team", payload);
            assertThat(api.post("/v1/events", e.toString()).status()).isEqualTo(201);
        }
        String id = api.get("/v1/search?limit=1&agent_id=" + encode(agent) + "&q=xsscorpus").json()
                .get("results").get(0).get("id").asText();

        openSearch("?q=xsscorpus&agent_id=" + encode(agent) + "&event=" + id);
        browser.visible("#verify-status[data-ok=true]");
        assertThat(browser.visible("#results").getText()).contains("<img src=x onerror=window.__xss=1>");
        assertInert();
        browser.screenshot("xss-inert");
        // Facets, a facet value with markup, the agents page and the live tail show the same text.
        if (facetsSupported()) {
            browser.await(d -> !browser.all("#facets .facet-value").isEmpty());
            browser.all("#facets [data-field='label.env'] .facet-value").get(0).click();
            browser.visible("#total[data-total]");
            assertInert();
        }
        browser.open(ui + "?view=agents");
        assertThat(browser.visible("#agents-body tr[data-agent^='xss-agent']").getText()).contains(agent);
        assertInert();
    }

    private static void assertInert() {
        assertThat(browser.script("return window.__xss === undefined")).isEqualTo(true);
        assertThat(browser.script("return document.querySelectorAll('main img, main svg, main iframe, main script, "
                + "main b, main [onerror], main [onload], main [onmouseover]').length")).isEqualTo(0L);
        assertThatThrownBy(() -> browser.driver().switchTo().alert()).isInstanceOf(NoAlertPresentException.class);
        assertThat(browser.severeLogs()).noneMatch(m -> m.contains("Content Security Policy"));
    }

    private static boolean facetsSupported() throws Exception {
        return api.get("/v1/search?q=*:*&limit=1&facets=agent_id").status() == 200;
    }

    @Test
    void aFacetClickNarrowsTheSearch() throws Exception {
        assumeTrue(facetsSupported(), "GET /v1/search has no facets in this build");
        openSearch("?q=*:*");
        WebElement value = browser.visible("#facets [data-field=action_status] [data-value=error]");
        assertThat(value.getText()).contains("10");
        browser.screenshot("facets");
        value.click();
        browser.await(d -> d.getCurrentUrl().contains("action_status=error"));
        browser.await(d -> "10".equals(browser.visible("#total[data-total]").getAttribute("data-total")));
        browser.visible("#facets [data-field='label.env'] [data-value=staging]").click();
        browser.await(d -> d.getCurrentUrl().contains("label.env=staging"));
        browser.await(d -> "2".equals(browser.visible("#total[data-total]").getAttribute("data-total")));
        assertThat(browser.all("#chips .chip")).hasSize(2);
    }

    @Test
    void aHistogramBarNarrowsTheTimeRange() throws Exception {
        assumeTrue(facetsSupported(), "GET /v1/search has no histogram in this build");
        openSearch("?q=*:*&agent_id=alice-agent");
        browser.await(d -> browser.all("#histogram .bar").size() >= 10);
        WebElement bar = browser.all("#histogram .bar[data-start^='2026-03-03']:not(.empty)").get(0);
        assertThat(bar.getAttribute("data-count")).isEqualTo("2");
        bar.click();
        browser.await(d -> d.getCurrentUrl().contains("since=2026-03-03"));
        browser.await(d -> "2".equals(browser.visible("#total[data-total]").getAttribute("data-total")));
    }
}
