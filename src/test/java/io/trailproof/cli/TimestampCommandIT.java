package io.trailproof.cli;

import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.TestTsa;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code trailproof timestamp} as a client of a running server. */
class TimestampCommandIT {

    @TempDir
    Path dir;

    private TestTsa tsa;
    private InProcessServer server;
    private String url;

    private record Run(int exit, String out, String err) {
    }

    @BeforeEach
    void start() throws Exception {
        tsa = TestTsa.start();
        server = InProcessServer.start(dir.resolve("data"), "timestamp.default-tsa-url", tsa.url(),
                "timestamp.trust-anchors", tsa.writeRootPem(dir.resolve("ca.pem")).toString());
        url = "http://127.0.0.1:" + server.server().port();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        tsa.close();
    }

    private Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        String[] all = new String[args.length + 3];
        all[0] = "timestamp";
        all[1] = "--server";
        all[2] = url;
        System.arraycopy(args, 0, all, 3, args.length);
        int exit = Main.run(new Commands(), new PrintWriter(out, true), new PrintWriter(err, true), all);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void timestampsListsAndVerifies() throws Exception {
        Run empty = run();
        assertThat(empty.exit()).isEqualTo(1);
        assertThat(empty.err()).contains("log is empty").contains("HTTP 409");

        Run noneYet = run("--verify");
        assertThat(noneYet.exit()).isEqualTo(1);
        assertThat(noneYet.err()).contains("nothing has been timestamped yet")
                .contains("run 'trailproof timestamp' first").doesNotContain("POST /v1/timestamp");

        server.api().post("/v1/events", "{\"agent_id\":\"a\"}");
        Run stamp = run();
        assertThat(stamp.exit()).as(stamp.err()).isZero();
        assertThat(stamp.out()).startsWith("Timestamped tree size 1, root ").contains("TSA time");

        Run list = run("--list");
        assertThat(list.exit()).isZero();
        assertThat(list.out()).contains("TREE SIZE").contains("127.0.0.1");

        Run json = run("--list", "--json");
        assertThat(json.exit()).isZero();
        assertThat(json.out().trim()).startsWith("[{\"id\":");

        server.api().post("/v1/events", "{\"agent_id\":\"a\"}");
        Run verify = run("--verify");
        assertThat(verify.exit()).as(verify.out()).isZero();
        assertThat(verify.out()).startsWith("VALID: the log's first 1 events").contains("existed no later than")
                .contains("certificate_chain  ok").contains("extends the stamped one");
    }

    @Test
    void failuresExitOneWithTheServersReason() throws Exception {
        server.api().post("/v1/events", "{\"agent_id\":\"a\"}");
        tsa.mode(TestTsa.Mode.REJECT);
        Run r = run();
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("refused the request").contains("HTTP 502");

        tsa.mode(TestTsa.Mode.UNTRUSTED);
        assertThat(run().exit()).isZero();
        Run invalid = run("--verify");
        assertThat(invalid.exit()).isEqualTo(1);
        assertThat(invalid.out()).startsWith("INVALID: certificate_chain: ").contains("certificate_chain  FAILED");

        Run bad = run("--tsa-url", "ftp://x/");
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.err()).contains("http or https").contains("HTTP 400");
    }

    @Test
    void badUsageExitsTwoAndAMissingServerOne() {
        assertThat(run("--list", "--verify").exit()).isEqualTo(2);
        assertThat(run("--verify", "--tsa-url", "http://x/").exit()).isEqualTo(2);
        url = "http://127.0.0.1:1";
        Run down = run("--list");
        assertThat(down.exit()).isEqualTo(1);
        assertThat(down.err()).contains("cannot reach the trailproof server");
    }
}
