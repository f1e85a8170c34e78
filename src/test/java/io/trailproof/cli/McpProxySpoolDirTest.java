package io.trailproof.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The proxy's spool is one subdirectory per service URL, named as the Python SDK names it
 * (src/site/mcp-proxy.md#delivery-and-the-spool), so a batch never reaches another service.
 */
class McpProxySpoolDirTest {

    private static final Map<String, String> ENV = Map.of("TRAILPROOF_SPOOL_DIR", "/var/spool/tp");

    @Test
    void theSubdirectoryIsTheUrlWithoutTrailingSlashesAndWithOtherCharactersFolded() {
        // Known answers computed with the SDK's rule: re.sub(r"[^A-Za-z0-9.-]+", "_", url.rstrip("/"))[:120]
        assertThat(McpProxyCommand.spoolDir(ENV, "http://127.0.0.1:7600/"))
                .isEqualTo(Path.of("/var/spool/tp/http_127.0.0.1_7600"));
        assertThat(McpProxyCommand.spoolDir(ENV, "http://127.0.0.1:7600"))
                .isEqualTo(Path.of("/var/spool/tp/http_127.0.0.1_7600"));
        assertThat(McpProxyCommand.spoolDir(ENV, "https://audit.example/base//"))
                .isEqualTo(Path.of("/var/spool/tp/https_audit.example_base"));
    }

    @Test
    void twoServicesNeverShareASpool() {
        assertThat(McpProxyCommand.spoolDir(ENV, "http://a.example:7600"))
                .isNotEqualTo(McpProxyCommand.spoolDir(ENV, "http://b.example:7600"));
    }

    @Test
    void aVeryLongUrlIsCutAt120Characters() {
        String url = "http://h/" + "p".repeat(300);
        assertThat(McpProxyCommand.spoolDir(ENV, url).getFileName().toString()).hasSize(120);
    }
}
