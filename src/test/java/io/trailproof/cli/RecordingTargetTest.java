package io.trailproof.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where the MCP proxy and the LLM gateway record to: options before the environment, bad values
 * refused with a message, and a spool that is one subdirectory per service URL, named as the Python
 * SDK names it (src/site/mcp-proxy.md#delivery-and-the-spool), so a batch never reaches another service.
 */
class RecordingTargetTest {

    private static final Map<String, String> ENV = Map.of("TRAILPROOF_SPOOL_DIR", "/var/spool/tp");

    @Test
    void theSubdirectoryIsTheUrlWithoutTrailingSlashesAndWithOtherCharactersFolded() {
        // Known answers computed with the SDK's rule: re.sub(r"[^A-Za-z0-9.-]+", "_", url.rstrip("/"))[:120]
        assertThat(RecordingTarget.spoolDir(ENV, "http://127.0.0.1:7600/"))
                .isEqualTo(Path.of("/var/spool/tp/http_127.0.0.1_7600"));
        assertThat(RecordingTarget.spoolDir(ENV, "http://127.0.0.1:7600"))
                .isEqualTo(Path.of("/var/spool/tp/http_127.0.0.1_7600"));
        assertThat(RecordingTarget.spoolDir(ENV, "https://audit.example/base//"))
                .isEqualTo(Path.of("/var/spool/tp/https_audit.example_base"));
    }

    @Test
    void twoServicesNeverShareASpool() {
        assertThat(RecordingTarget.spoolDir(ENV, "http://a.example:7600"))
                .isNotEqualTo(RecordingTarget.spoolDir(ENV, "http://b.example:7600"));
    }

    @Test
    void aVeryLongUrlIsCutAt120Characters() {
        String url = "http://h/" + "p".repeat(300);
        assertThat(RecordingTarget.spoolDir(ENV, url).getFileName().toString()).hasSize(120);
    }

    @Test
    void optionsComeBeforeTheEnvironmentAndAnEmptyAgentIdIsNone() {
        Map<String, String> env = Map.of("TRAILPROOF_URL", "http://env.example:7600", "TRAILPROOF_API_KEY", "env-key",
                "TRAILPROOF_AGENT_ID", "", "TRAILPROOF_SPOOL_DIR", "/var/spool/tp");
        RecordingTarget fromEnv = RecordingTarget.resolve(null, null, null, env, new PrintStream(new ByteArrayOutputStream()));
        assertThat(fromEnv.server().toString()).isEqualTo("http://env.example:7600");
        assertThat(fromEnv.apiKey()).isEqualTo("env-key");
        assertThat(fromEnv.agentId()).isNull();
        assertThat(fromEnv.recording()).isTrue();
        assertThat(fromEnv.spoolDir()).isEqualTo(Path.of("/var/spool/tp/http_env.example_7600"));
        RecordingTarget fromOptions = RecordingTarget.resolve("https://opt.example", "opt-key", "agent-1", env,
                new PrintStream(new ByteArrayOutputStream()));
        assertThat(fromOptions.server().toString()).isEqualTo("https://opt.example");
        assertThat(fromOptions.apiKey()).isEqualTo("opt-key");
        assertThat(fromOptions.agentId()).isEqualTo("agent-1");
        assertThat(RecordingTarget.resolve(null, null, null, Map.of("TRAILPROOF_ENABLED", " FALSE "),
                new PrintStream(new ByteArrayOutputStream())).recording()).isFalse();
    }

    @Test
    void aMalformedServerOrAgentIdIsRefusedWithWhatIsWrong() {
        for (String[] bad : new String[][] {{"ftp://h", null, "--server"}, {"http://h/?q=1", null, "--server"},
                {"not a url", null, "--server"}, {null, "a".repeat(257), "--agent-id"}, {null, "a\nb", "--agent-id"}}) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertThat(RecordingTarget.resolve(bad[0], null, bad[1], Map.of(), new PrintStream(err, true, StandardCharsets.UTF_8)))
                    .as(String.join(" ", String.valueOf(bad[0]), String.valueOf(bad[1]))).isNull();
            assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("trailproof: " + bad[2] + " must be");
        }
    }
}
