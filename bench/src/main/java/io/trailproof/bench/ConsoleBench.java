package io.trailproof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventValidator;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The investigator console's speed: fills a data directory with N events (default
 * 1,000,000, spread over 90 days, 1,000 agents) through the ledger, starts the packaged server on
 * it, waits until the index covers the log, then measures
 * <ul>
 *   <li>in headless Chromium: the time from navigation start to the first page of results rendered
 *   (the console records {@code performance.now()} when it has drawn them, in
 *   {@code document.documentElement.dataset.resultsRenderedMs}), p50 / p99 over fresh navigations;</li>
 *   <li>over HTTP, one request at a time: p50 / p99 of each request the console's search page makes
 *   (the page of results, the facets, the histogram), so the two can be told apart.</li>
 * </ul>
 * Usage: {@code ConsoleBench [DIST] [--events N] [--loads L]} (defaults 1,000,000 and 30); needs {@code /usr/bin/chromium} and
 * {@code /usr/bin/chromedriver}. Figures mean something only on a quiet machine.
 */
public final class ConsoleBench {

    private static final String[] WORDS = {"revenue", "forecast", "customer", "invoice", "refund", "database", "search",
            "report", "quarterly", "email", "schedule", "meeting", "contract", "payment", "error", "timeout"};
    private static final String[] TYPES = {"TOOL_CALL", "LLM_CALL", "DECISION", "HUMAN_INPUT"};
    private static final String[] STATUSES = {"success", "success", "success", "error"};
    private static final Instant START = Instant.parse("2026-06-01T00:00:00Z");

    /** The searches measured: what an investigator's first screen and a narrowed one look like. */
    private static final String[][] VIEWS = {
            {"broad, every event", "?q="},
            {"words", "?q=" + enc("refund timeout")},
            {"selective, one agent", "?q=" + enc("invoice") + "&agent_id=agent-7"},
    };

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--events", "--loads");
        Path dist = a.dist();
        int events = a.intOption("--events", 1_000_000);
        int loads = a.intOption("--loads", 30);
        Path data = Files.createTempDirectory("trailproof-console-bench");
        System.out.printf(Locale.ROOT, "console bench: %,d events in %s, %d page loads per view (%d cores)%n", events, data,
                loads, Runtime.getRuntime().availableProcessors());
        fill(data, events);
        try (ServerUnderTest server = ServerUnderTest.start(dist, data, "-Xmx2g")) {
            String base = "http://127.0.0.1:" + server.port;
            HttpClient http = HttpClient.newHttpClient();
            awaitIndexed(http, base);
            ChromeDriver browser = browser();
            try {
                System.out.println();
                System.out.println("| view | browser: navigation to rendered results p50 / p99 | API: results / facets / histogram p50 (p99) |");
                System.out.println("|---|---|---|");
                for (String[] view : VIEWS) {
                    long[] rendered = renderTimes(browser, base + "/ui/" + view[1], loads);
                    String q = view[1].equals("?q=") ? "?q=" + enc("*:*") : view[1];
                    String results = api(http, base + "/v1/search" + q + "&limit=25", loads);
                    String facets = api(http, base + "/v1/search" + q + "&limit=1&facets="
                            + enc("agent_id,action_type,action_status,source,label.env,label.shard"), loads);
                    String histogram = api(http, base + "/v1/search" + q + "&limit=1&histogram=P7D", loads);
                    System.out.printf(Locale.ROOT, "| %s | %d / %d ms | %s / %s / %s |%n", view[0],
                            percentile(rendered, 50), percentile(rendered, 99), results, facets, histogram);
                }
            } finally {
                browser.quit();
            }
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static void fill(Path data, int events) throws Exception {
        ObjectMapper json = new ObjectMapper();
        Random rnd = new Random(42);
        long spanSeconds = Duration.ofDays(90).toSeconds();
        long t0 = System.nanoTime();
        try (Ledger ledger = Ledger.open(data, LedgerOptions.defaults(), Clock.systemUTC(), new SecureRandom())) {
            for (int done = 0; done < events; ) {
                int n = Math.min(1000, events - done);
                List<ObjectNode> batch = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    int k = done + i;
                    ObjectNode e = json.createObjectNode()
                            .put("agent_id", "agent-" + (k % 1000))
                            .put("action_type", TYPES[k % TYPES.length])
                            .put("action_status", STATUSES[rnd.nextInt(STATUSES.length)])
                            .put("source", k % 3 == 0 ? "otlp" : "sdk")
                            .put("action_name", WORDS[rnd.nextInt(WORDS.length)] + "_" + WORDS[rnd.nextInt(WORDS.length)])
                            .put("timestamp", START.plusSeconds(k * spanSeconds / Math.max(1, events)).toString());
                    e.putObject("action_input").put("q", WORDS[rnd.nextInt(WORDS.length)] + " " + WORDS[rnd.nextInt(WORDS.length)]
                            + " ref-" + k);
                    e.putObject("labels").put("env", k % 10 == 0 ? "dev" : "prod").put("shard", "s" + (k % 16));
                    if (k % 50 == 0) {
                        e.put("error_message", "upstream " + WORDS[rnd.nextInt(WORDS.length)] + " failed: timeout");
                    }
                    batch.add(EventValidator.validate(e));
                }
                ledger.append(batch);
                done += n;
            }
        }
        System.out.printf(Locale.ROOT, "log filled in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    /** The server indexes the log at start; measuring before it is done would measure the catch-up. */
    private static void awaitIndexed(HttpClient http, String base) throws Exception {
        long t0 = System.nanoTime();
        while (true) {
            String body = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/admin/index")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            if (body.contains("\"state\":\"ready\"")) {
                break;
            }
            Thread.sleep(1000);
        }
        System.out.printf(Locale.ROOT, "index ready after %.1f s; measuring after 2 s idle%n", (System.nanoTime() - t0) / 1e9);
        Thread.sleep(2000);
    }

    private static ChromeDriver browser() {
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver")).usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1440,900");
        return new ChromeDriver(service, options);
    }

    /** Fresh navigations (not reloads from cache: every console file is revalidated): ms to rendered results. */
    private static long[] renderTimes(ChromeDriver browser, String url, int loads) {
        int warmup = Math.max(2, loads / 10);
        long[] out = new long[loads];
        for (int i = -warmup; i < loads; i++) {
            browser.get("about:blank");
            browser.get(url);
            Object ms = new WebDriverWait(browser, Duration.ofSeconds(60)).until(d -> ((JavascriptExecutor) d)
                    .executeScript("return document.documentElement.dataset.resultsRenderedMs || null"));
            if (i >= 0) {
                out[i] = Long.parseLong(ms.toString());
            }
        }
        return out;
    }

    /** p50 (p99) in ms of sequential GETs, or the status when the server refuses the request. */
    private static String api(HttpClient http, String url, int count) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).build();
        HttpResponse<String> first = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (first.statusCode() != 200) {
            return "n/a (" + first.statusCode() + ")";
        }
        long[] nanos = new long[count];
        for (int i = 0; i < count; i++) {
            long t0 = System.nanoTime();
            http.send(request, HttpResponse.BodyHandlers.ofString());
            nanos[i] = (System.nanoTime() - t0) / 1_000_000;
        }
        return percentile(nanos, 50) + " (" + percentile(nanos, 99) + ") ms";
    }

    private static long percentile(long[] values, int p) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }
}
