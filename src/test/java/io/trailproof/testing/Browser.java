package io.trailproof.testing;

import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.PageLoadStrategy;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedCondition;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

/**
 * Headless Chromium driven by Selenium, for the console's browser tests. Uses Debian's
 * {@code chromium} and {@code chromium-driver} at fixed paths and never lets Selenium download a
 * browser or driver (no internet in tests); without them it fails at once with what to install.
 * Start one per test class: a start costs about 2 s.
 */
public final class Browser implements AutoCloseable {

    public static final String CHROMIUM = "/usr/bin/chromium";
    public static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    public static final Duration WAIT = Duration.ofSeconds(20);
    /**
     * How often a wait asks the browser again: a tenth of a second, not Selenium's default half
     * second, which a wait on a page that renders in a few milliseconds mostly spent idle.
     */
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");

    private final ChromeDriver driver;
    private final Path downloads;

    private Browser(ChromeDriver driver, Path downloads) {
        this.driver = driver;
        this.downloads = downloads;
    }

    /** Starts a browser whose downloads land in {@code downloads}. */
    public static Browser start(Path downloads) {
        for (String path : List.of(CHROMIUM, CHROMEDRIVER)) {
            if (!Files.isExecutable(Path.of(path))) {
                throw new IllegalStateException("the console's browser tests need " + path + ": install Debian's "
                        + "packages with 'apt-get install -y chromium chromium-driver' (.ci/run does this)");
            }
        }
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort()
                .withTimeout(Duration.ofSeconds(30))
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        // --no-sandbox: tests run as root, where Chromium's sandbox cannot start. The background
        // services (component updates, sync, the network's own requests) are off: the tests have no
        // network beyond the loopback, and Chromium would otherwise keep trying to reach Google.
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1440,900", "--lang=en-US", "--no-first-run", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-quic", "--disable-default-apps", "--mute-audio");
        options.setExperimentalOption("prefs", Map.of(
                "download.default_directory", downloads.toAbsolutePath().toString(),
                "download.prompt_for_download", false));
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        options.setPageLoadStrategy(PageLoadStrategy.NORMAL);
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(WAIT).scriptTimeout(WAIT);
        return new Browser(driver, downloads);
    }

    public ChromeDriver driver() {
        return driver;
    }

    public Path downloads() {
        return downloads;
    }

    public void open(String url) {
        driver.get(url);
    }

    /** Waits until the condition holds (a non-null, non-false value) and returns its value. */
    public <T> T await(ExpectedCondition<T> condition) {
        return new WebDriverWait(driver, WAIT, POLL).until(condition);
    }

    /** The first element matching the CSS selector once it is displayed. */
    public WebElement visible(String css) {
        return await(d -> {
            List<WebElement> found = d.findElements(By.cssSelector(css));
            return found.isEmpty() || !found.get(0).isDisplayed() ? null : found.get(0);
        });
    }

    /**
     * The text of the first element matching the CSS selector, read in the page ("" when there is
     * none): safe while the page re-renders, where a held element reference would go stale.
     */
    public String text(String css) {
        Object t = script("const e = document.querySelector(arguments[0]); return e ? e.textContent : '';", css);
        return t == null ? "" : t.toString();
    }

    public List<WebElement> all(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    public Object script(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(js, args);
    }

    public Object asyncScript(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeAsyncScript(js, args);
    }

    /** Saves a screenshot to target/screenshots/NAME.png and returns its path. */
    public Path screenshot(String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        Path to = SCREENSHOTS.resolve(name + ".png");
        Files.write(to, driver.getScreenshotAs(OutputType.BYTES));
        return to;
    }

    /**
     * The console messages at level SEVERE since the last call (uncaught errors, CSP violations),
     * without the browser's own line for every non-2xx answer: a 400 or 401 is an answer the
     * console shows, not an error of the page.
     */
    public List<String> severeLogs() {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .filter(e -> !e.getMessage().contains("Failed to load resource: the server responded with a status of"))
                .map(LogEntry::getMessage)
                .toList();
    }

    @Override
    public void close() {
        driver.quit();
    }
}
