package io.trailproof.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.testing.LaunchedJvm;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The README's tour runs as written. The fenced blocks whose info string is {@code sh tour} are
 * taken from README.md, split into commands, and run in one shell (so variables carry from one
 * command to the next) against the packaged server on a free port: the port and the launcher's
 * path are substituted, a stream is read for a few seconds, and each answer is checked (exit code,
 * HTTP status, key fields).
 */
class ReadmeTourIT {

    private static final Path ROOT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
    private static final Pattern TOUR = Pattern.compile("(?ms)^```sh tour\\n(.*?)^```");
    private static final String END = "@@TOUR-END ";
    private static final String STATUS = "@@HTTP ";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** What a command printed and how it ended. */
    record Outcome(String command, String output, int exit, int status) {
        JsonNode json() {
            try {
                return JSON.readTree(output);
            } catch (IOException e) {
                throw new AssertionError("not JSON: " + this, e);
            }
        }

        @Override
        public String toString() {
            return "$ " + command + "\n(exit " + exit + ", HTTP " + status + ")\n" + output;
        }
    }

    /** Checks keyed by a piece of the command they apply to; each must be used by the tour. */
    private static Map<String, BiConsumer<Outcome, Path>> checks() {
        Map<String, BiConsumer<Outcome, Path>> checks = new LinkedHashMap<>();
        checks.put("/v1/batch", (o, cwd) -> {
            assertThat(o.status()).as(o.toString()).isEqualTo(201);
            assertThat(o.json()).as(o.toString()).hasSize(4);
            o.json().forEach(item -> assertThat(item.has("event")).as(o.toString()).isTrue());
        });
        checks.put("/v1/search", (o, cwd) -> {
            assertThat(o.json().get("total").asLong()).as(o.toString()).isEqualTo(1);
            assertThat(o.json().get("results").get(0).get("action_name").asText()).isEqualTo("search_database");
        });
        checks.put("trailproof search", (o, cwd) -> assertThat(o.output()).as(o.toString()).contains("agent-042"));
        checks.put("/v1/verify", (o, cwd) -> {
            assertThat(o.json().get("valid").asBoolean()).as(o.toString()).isTrue();
            assertThat(o.json().get("events_verified").asLong()).as(o.toString()).isEqualTo(2);
        });
        checks.put("trailproof verify --agent-id", (o, cwd) -> assertThat(o.output()).as(o.toString()).contains("valid"));
        checks.put("ID=$(", (o, cwd) -> assertThat(o.output()).as(o.toString()).isEmpty());
        checks.put("/v1/merkle/proof", (o, cwd) -> {
            JsonNode proof = o.json();
            assertThat(proof.get("tree_size").asLong()).as(o.toString()).isEqualTo(4);
            assertThat(proof.get("leaf_index").asLong()).as(o.toString()).isEqualTo(1);
            assertThat(proof.get("siblings")).as(o.toString()).hasSize(2);
        });
        checks.put("/v1/merkle/root", (o, cwd) -> {
            assertThat(o.json().get("tree_size").asLong()).as(o.toString()).isEqualTo(4);
            assertThat(o.json().get("root").asText()).as(o.toString()).matches("[0-9a-f]{64}");
        });
        checks.put("trailproof export", (o, cwd) -> assertThat(cwd.resolve("evidence.json")).isRegularFile());
        checks.put("trailproof verify-export", (o, cwd) -> assertThat(o.output()).as(o.toString()).contains("VALID"));
        checks.put("/v1/stream", (o, cwd) -> {
            assertThat(o.output()).as(o.toString()).contains("id: 0\n", "id: 3\n", "event: event\n");
            assertThat(o.output().split("event: event\n", -1)).as(o.toString()).hasSize(5);
        });
        return checks;
    }

    @Test
    void theTourRunsAsWritten() throws Exception {
        List<String> commands = tourCommands(Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8));
        assertThat(commands).as("commands of the README's `sh tour` blocks").hasSizeGreaterThanOrEqualTo(10);
        Path cwd = Files.createDirectories(dir.resolve("work"));
        List<Outcome> outcomes;
        try (ServerProcess server = ServerProcess.start(dir.resolve("data"))) {
            outcomes = run(commands, server.port(), cwd);
        }
        assertThat(outcomes).hasSameSizeAs(commands);
        Map<String, BiConsumer<Outcome, Path>> checks = checks();
        Map<String, Integer> used = new LinkedHashMap<>();
        for (Outcome o : outcomes) {
            boolean stream = o.command().startsWith("curl -N");
            if (stream) {
                assertThat(o.exit()).as("a stream read for a few seconds ends by its time limit\n" + o).isIn(0, 28);
            } else {
                assertThat(o.exit()).as(o.toString()).isZero();
            }
            if (o.command().startsWith("curl") && !stream) {
                assertThat(o.status()).as(o.toString()).isBetween(200, 299);
            }
            checks.forEach((key, check) -> {
                if (o.command().contains(key)) {
                    check.accept(o, cwd);
                    used.merge(key, 1, Integer::sum);
                }
            });
        }
        assertThat(used.keySet()).as("every step of the tour is still in README.md").containsAll(checks.keySet());
    }

    @Test
    void commandsAreSplitAsTheShellReadsThem() {
        String block = "# a comment\ncurl -s a \\\n  -d 'x'\n\nX=$(echo '{\n\"k\": 1\n}')\necho \"$X\"\n";
        assertThat(tourCommands("```sh tour\n" + block + "```\n"))
                .containsExactly("curl -s a \\\n  -d 'x'", "X=$(echo '{\n\"k\": 1\n}')", "echo \"$X\"");
    }

    /** The commands of every {@code sh tour} block: comments dropped, continuations and quoted line breaks kept. */
    static List<String> tourCommands(String readme) {
        List<String> commands = new ArrayList<>();
        Matcher m = TOUR.matcher(readme);
        while (m.find()) {
            StringBuilder current = new StringBuilder();
            for (String line : m.group(1).split("\n", -1)) {
                if (current.isEmpty() && (line.isBlank() || line.strip().startsWith("#"))) {
                    continue;
                }
                if (!current.isEmpty()) {
                    current.append('\n');
                }
                current.append(line);
                if (!insideQuotes(current) && !line.endsWith("\\")) {
                    commands.add(current.toString().strip());
                    current.setLength(0);
                }
            }
            assertThat(current.toString()).as("a tour block ends inside a command").isBlank();
        }
        return commands;
    }

    private static boolean insideQuotes(CharSequence text) {
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote == 0 && (c == '\'' || c == '"')) {
                quote = c;
            } else if (quote == '"' && c == '\\') {
                i++;
            } else if (c == quote) {
                quote = 0;
            }
        }
        return quote != 0;
    }

    /** Runs the commands in one bash, as a reader pasting them would, and splits what they printed. */
    private static List<Outcome> run(List<String> commands, int port, Path cwd) throws IOException, InterruptedException {
        Path launcher = ServerProcess.launcher().toAbsolutePath();
        StringBuilder script = new StringBuilder("exec 2>&1\n");
        for (String command : commands) {
            String adapted = command.replace("localhost:7600", "127.0.0.1:" + port)
                    .replace("127.0.0.1:7600", "127.0.0.1:" + port)
                    .replace("target/trailproof/bin/trailproof", launcher.toString());
            if (adapted.startsWith("curl -N")) {
                adapted = "curl --max-time 5" + adapted.substring("curl".length());
            } else if (adapted.startsWith("curl ")) {
                adapted = "curl -w '\\n" + STATUS + "%{http_code}'" + adapted.substring("curl".length());
            }
            script.append(adapted).append("\necho \"\n").append(END).append("$?\"\n");
        }
        Path file = cwd.resolve("tour.sh");
        Files.writeString(file, script.toString(), StandardCharsets.UTF_8);
        ProcessBuilder pb = ServerProcess.onTestJdk(
                new ProcessBuilder("bash", file.toString()).directory(cwd.toFile()).redirectErrorStream(true));
        pb.environment().put("TRAILPROOF_URL", "http://127.0.0.1:" + port);
        pb.environment().remove("TRAILPROOF_API_KEY");
        pb.environment().put("TRAILPROOF_JAVA_OPTS", LaunchedJvm.withOptions("-Xmx256m"));
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("the tour did not finish");
        }
        String all = new String(out, StandardCharsets.UTF_8);
        List<Outcome> outcomes = new ArrayList<>();
        String[] parts = all.split("\n" + END, -1);
        for (int i = 0; i < commands.size() && i < parts.length - 1; i++) {
            String part = parts[i];
            if (i > 0) {
                part = part.substring(part.indexOf('\n') + 1); // the previous command's exit code line
            }
            int exit = Integer.parseInt(parts[i + 1].lines().findFirst().orElse("-1").strip());
            int status = -1;
            int at = part.lastIndexOf(STATUS);
            if (at >= 0) {
                status = Integer.parseInt(part.substring(at + STATUS.length()).strip());
                part = part.substring(0, at);
            }
            outcomes.add(new Outcome(commands.get(i), part.strip(), exit, status));
        }
        assertThat(outcomes).as("the tour's output:\n" + all).hasSameSizeAs(commands);
        return outcomes;
    }
}
