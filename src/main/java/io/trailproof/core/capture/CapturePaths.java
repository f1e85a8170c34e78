package io.trailproof.core.capture;

import java.util.Set;

/**
 * Which capture path recorded an event (src/site/completeness.md#coverage), from its
 * {@code capture_method}: the value each capture path of the project writes there
 * ({@code python-sdk}, {@code typescript-sdk}, {@code mcp-proxy}, {@code llm-gateway}, {@code otlp},
 * and {@code <harness>-hook} for the coding-agent hooks, such as {@code claude-code-hook}), else
 * {@code http}: an event sent by a client of the HTTP API that is no capture path of the project.
 */
public final class CapturePaths {

    public static final String HTTP = "http";
    public static final String LLM_GATEWAY = "llm-gateway";
    public static final String OTLP = "otlp";
    public static final String PYTHON_SDK = "python-sdk";
    public static final String TYPESCRIPT_SDK = "typescript-sdk";
    public static final String MCP_PROXY = "mcp-proxy";
    private static final Set<String> NAMED = Set.of(PYTHON_SDK, TYPESCRIPT_SDK, MCP_PROXY, LLM_GATEWAY, OTLP);
    private static final String HOOK_SUFFIX = "-hook";

    /** Paths that see an LLM call from inside the agent's process. */
    private static final Set<String> IN_PROCESS = Set.of(PYTHON_SDK, TYPESCRIPT_SDK, OTLP, HTTP);

    private CapturePaths() {
    }

    /** The path of an event whose {@code capture_method} is {@code captureMethod} (null when absent). */
    public static String of(String captureMethod) {
        if (captureMethod == null) {
            return HTTP;
        }
        if (NAMED.contains(captureMethod)) {
            return captureMethod;
        }
        if (captureMethod.length() > HOOK_SUFFIX.length() && captureMethod.endsWith(HOOK_SUFFIX)
                && captureMethod.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
            return captureMethod;
        }
        return HTTP;
    }

    /** Whether the path records LLM calls from inside the agent's process (SDKs, OTLP, direct HTTP). */
    public static boolean inProcess(String path) {
        return IN_PROCESS.contains(path);
    }
}
