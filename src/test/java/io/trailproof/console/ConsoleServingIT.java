package io.trailproof.console;

import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the console's files are served (src/site/console.md), over plain HTTP: redirects, content types,
 * the security headers on every answer, no listing, no way out of the console's files, and no
 * API key needed for the pages while the API still needs one.
 */
class ConsoleServingIT {

    private static final String KEY = "console-serving-test-key-0123456789";

    @TempDir
    static Path dir;

    private static InProcessServer server;
    private static Api api;

    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"), "auth.api-keys", KEY + ":read");
        api = server.api();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static void assertSecurityHeaders(Api.Reply r) {
        assertThat(r.header("Content-Security-Policy"))
                .contains("default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'",
                        "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'")
                .doesNotContain("unsafe-inline", "unsafe-eval", "http:", "https:", "*");
        assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
        assertThat(r.header("Referrer-Policy")).isEqualTo("no-referrer");
    }

    @Test
    void rootAndUiRedirectToTheConsole() throws Exception {
        for (String path : new String[] {"/", "/ui"}) {
            Api.Reply r = api.get(path);
            assertThat(r.status()).as(path).isEqualTo(302);
            assertThat(r.header("Location")).isEqualTo("/ui/");
            assertSecurityHeaders(r);
        }
    }

    @Test
    void theConsoleIsServedWithoutAKeyWithItsContentTypesAndHeaders() throws Exception {
        Api.Reply index = api.get("/ui/");
        assertThat(index.status()).isEqualTo(200);
        assertThat(index.header("Content-Type")).isEqualTo("text/html; charset=utf-8");
        assertThat(index.body()).contains("<script type=\"module\" src=\"js/main.js\"></script>")
                .doesNotContainPattern("<script>|<script type=\"module\">|style=|\\son[a-z]+=");
        assertSecurityHeaders(index);
        assertThat(api.get("/ui/index.html").body()).isEqualTo(index.body());

        Api.Reply js = api.get("/ui/js/main.js");
        assertThat(js.status()).isEqualTo(200);
        assertThat(js.header("Content-Type")).isEqualTo("text/javascript; charset=utf-8");
        assertSecurityHeaders(js);
        assertThat(api.get("/ui/console.css").header("Content-Type")).isEqualTo("text/css; charset=utf-8");
        assertThat(api.get("/ui/favicon.svg").header("Content-Type")).isEqualTo("image/svg+xml");

        // The API itself still needs the key.
        assertThat(api.get("/v1/agents").status()).isEqualTo(401);
    }

    /** index.html asks for every module at once (modulepreload); a module left off that list would load a round trip later. */
    @Test
    void everyModuleIsPreloaded() throws Exception {
        String index = api.get("/ui/").body();
        try (var modules = Files.list(Path.of("src/main/resources/ui/js"))) {
            for (Path m : modules.toList()) {
                String name = m.getFileName().toString();
                if (!name.equals("main.js")) {
                    assertThat(index).as(name).contains("<link rel=\"modulepreload\" href=\"js/" + name + "\">");
                }
                assertThat(api.get("/ui/js/" + name).status()).as(name).isEqualTo(200);
            }
        }
    }

    @Test
    void aFileIsRevalidatedByItsEtag() throws Exception {
        Api.Reply first = api.get("/ui/js/api.js");
        assertThat(first.header("Cache-Control")).isEqualTo("no-cache");
        String etag = first.header("ETag");
        assertThat(etag).isNotBlank();
        Api.Reply again = api.send(HttpRequest.newBuilder(URI.create(api.base() + "/ui/js/api.js"))
                .header("If-None-Match", etag).GET());
        assertThat(again.status()).isEqualTo(304);
        assertThat(again.body()).isEmpty();
    }

    @Test
    void otherMethodsAreRefused() throws Exception {
        Api.Reply r = api.post("/ui/", "{}");
        assertThat(r.status()).isEqualTo(405);
        assertThat(r.header("Allow")).isEqualTo("GET, HEAD");
        assertThat(r.json().get("error").asText()).contains("GET or HEAD");
        assertSecurityHeaders(r);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/ui/js/", "/ui/js", "/ui/nothing.html", "/ui/js/main.js.map", "/ui/../pom.xml",
            "/ui/../../../../etc/passwd", "/ui/%2e%2e/%2e%2e/pom.xml", "/ui/%2e%2e%2fpom.xml", "/ui/..%2f..%2fetc/passwd",
            "/ui/..%5c..%5cpom.xml", "/ui/%252e%252e/pom.xml", "/ui//etc/passwd", "/ui/./index.html",
            "/ui/js/../../README.md", "/ui/%c0%ae%c0%ae/pom.xml", "/ui/index.html%00.js",
            "/ui/io/trailproof/http/HttpApi.class"})
    void nothingOutsideTheConsoleFilesAndNoListing(String path) throws Exception {
        String answer = rawGet(path);
        String status = answer.substring(0, answer.indexOf("\r\n"));
        assertThat(status).as(path).matches("HTTP/1.1 (400|404) .*");
        assertThat(answer).as(path).doesNotContain("<project", "root:", "trailproof\n", "CAFEBABE", "<li>");
    }

    /** Sends the path byte for byte (an HTTP client would normalise dot segments first). */
    private static String rawGet(String path) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.server().port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
