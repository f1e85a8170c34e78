package io.trailproof.server;

import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The packaged launcher refuses a non-loopback address without keys, unless told the network is trusted. */
@Order(RunOrder.LONG)
class BindSafetyIT {

    @TempDir
    Path dir;

    @Test
    void refusesNonLoopbackWithoutKeysAndSaysWhy() throws Exception {
        Process p = ServerProcess.onTestJdk(new ProcessBuilder(ServerProcess.launcher().toString(), "serve", "--host",
                "0.0.0.0", "--port", "0", "--data-dir", dir.resolve("d").toString()).redirectErrorStream(true)).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(out).isEqualTo(2);
        assertThat(out).contains("refusing to listen on 0.0.0.0 without API keys")
                .contains("--api-keys").contains("--insecure-no-auth").doesNotContain("listening on");
    }

    @Test
    void insecureNoAuthStartsAndWarns() throws Exception {
        try (ServerProcess server = ServerProcess.start(dir.resolve("d"), "--host", "0.0.0.0", "--insecure-no-auth")) {
            assertThat(server.startupOutput()).contains("without API keys (--insecure-no-auth)");
            assertThat(server.api().post("/v1/events", "{\"agent_id\":\"open\"}").status()).isEqualTo(201);
            assertThat(server.api().get("/v1/agents").status()).isEqualTo(200);
            assertThat(server.stop()).isZero();
        }
    }

    @Test
    void keysAllowANonLoopbackAddressAndAreEnforced() throws Exception {
        String key = "bind-secret-42";
        try (ServerProcess server = ServerProcess.start(dir.resolve("d"), "--host", "0.0.0.0", "--api-keys", key)) {
            assertThat(server.startupOutput()).doesNotContain(key);
            var refused = server.api().get("/v1/agents");
            assertThat(refused.status()).isEqualTo(401);
            assertThat(refused.header("WWW-Authenticate")).isEqualTo("Bearer");
            var allowed = server.api().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/v1/agents"))
                    .header("Authorization", "Bearer " + key).GET());
            assertThat(allowed.status()).isEqualTo(200);
            assertThat(server.api().get("/health").status()).isEqualTo(200);
            assertThat(server.stop()).isZero();
        }
    }
}
