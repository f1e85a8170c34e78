package io.trailproof.cli;

import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where a recorder that runs beside an agent (the MCP proxy, the LLM gateway) sends its events, from
 * its options and the environment (src/site/mcp-proxy.md, src/site/llm-gateway.md): the service
 * ({@code --server}, else {@code TRAILPROOF_URL}), the key ({@code --api-key}, else
 * {@code TRAILPROOF_API_KEY}), the agent id ({@code --agent-id}, else {@code TRAILPROOF_AGENT_ID};
 * none when empty), whether to record at all ({@code TRAILPROOF_ENABLED=false} turns it off) and the
 * spool of batches not yet sent.
 *
 * @param url      the service URL as given
 * @param server   the same, parsed
 * @param apiKey   the key, or null
 * @param agentId  the agent id, or null when the recorder chooses its own
 * @param recording false when recording is turned off
 * @param spoolDir the spool of this service ({@link #spoolDir})
 */
record RecordingTarget(String url, URI server, String apiKey, String agentId, boolean recording, Path spoolDir) {

    /** The longest agent id, as the service accepts it. */
    static final int MAX_AGENT_ID_LENGTH = 256;

    /**
     * The target named by the options (null where not given) and {@code env}; null, after saying why
     * on {@code err}, when an option is malformed.
     */
    static RecordingTarget resolve(String serverOption, String apiKeyOption, String agentIdOption,
                                   Map<String, String> env, PrintStream err) {
        String url = serverOption != null ? serverOption : env.getOrDefault("TRAILPROOF_URL", ClientOptions.DEFAULT_SERVER);
        URI server = httpUrl(url, "--server", err);
        String agent = agentIdOption != null ? agentIdOption : env.get("TRAILPROOF_AGENT_ID");
        if (agent != null && agent.isEmpty()) {
            agent = null;
        }
        if (agent != null && (agent.length() > MAX_AGENT_ID_LENGTH || agent.codePoints().anyMatch(Character::isISOControl))) {
            err.println("trailproof: --agent-id must be 1 to " + MAX_AGENT_ID_LENGTH + " characters without control characters");
            return null;
        }
        if (server == null) {
            return null;
        }
        String key = apiKeyOption != null ? apiKeyOption : env.get("TRAILPROOF_API_KEY");
        boolean recording = !"false".equalsIgnoreCase(env.getOrDefault("TRAILPROOF_ENABLED", "true").trim());
        return new RecordingTarget(url, server, key, agent, recording, spoolDir(env, url));
    }

    /** {@code url} parsed when it is an http or https URL with a host and without query or fragment; null, said on {@code err}, otherwise. */
    static URI httpUrl(String url, String option, PrintStream err) {
        try {
            URI uri = new URI(url);
            if (!("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
                    || uri.getHost() == null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
                throw new URISyntaxException(url, "not an http or https URL without query");
            }
            return uri;
        } catch (URISyntaxException e) {
            err.println("trailproof: " + option + " must be an http or https URL without query or fragment: " + url);
            return null;
        }
    }

    /**
     * The spool of one service: {@code TRAILPROOF_SPOOL_DIR}, else {@code ~/.trailproof/spool}, then the
     * service URL without trailing slashes, every run of characters other than letters, digits,
     * {@code .} and {@code -} made one {@code _} (at most 120 characters). The Python SDK names the
     * same directory for the same URL, so batches are never sent to another service than the one
     * they were meant for; each sends its own files ({@code .json} here, {@code .batch} there).
     */
    static Path spoolDir(Map<String, String> env, String url) {
        String dir = env.get("TRAILPROOF_SPOOL_DIR");
        Path root = dir != null && !dir.isBlank()
                ? Path.of(dir)
                : Path.of(System.getProperty("user.home"), ".trailproof", "spool");
        String name = url.replaceAll("/+$", "").replaceAll("[^A-Za-z0-9.-]+", "_");
        return root.resolve(name.length() > 120 ? name.substring(0, 120) : name);
    }
}
