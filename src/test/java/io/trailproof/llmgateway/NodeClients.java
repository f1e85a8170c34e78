package io.trailproof.llmgateway;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The official OpenAI and Anthropic SDKs for Node, installed with {@code npm ci} from the lock file in
 * src/test/node/llm-gateway into target/llm-gateway-node (once: a later run with the same lock file
 * reuses the installation), and the scripts there that drive them.
 */
final class NodeClients {

    private static final Path SOURCE = Path.of("src", "test", "node", "llm-gateway");
    private static final Path DIR = Path.of("target", "llm-gateway-node");
    private static final List<String> FILES = List.of("package.json", "package-lock.json", "openai-client.mjs",
            "anthropic-client.mjs");

    private NodeClients() {
    }

    /** Installs the SDKs unless the same lock file was installed before; copies the scripts. */
    static synchronized void install() throws IOException, InterruptedException {
        Files.createDirectories(DIR);
        Path lock = DIR.resolve("package-lock.json");
        boolean current = Files.isDirectory(DIR.resolve("node_modules"))
                && Files.exists(lock) && Files.mismatch(lock, SOURCE.resolve("package-lock.json")) == -1;
        for (String file : FILES) {
            Files.copy(SOURCE.resolve(file), DIR.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        }
        if (current) {
            return;
        }
        Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
                .directory(DIR.toFile()).redirectErrorStream(true).start();
        String output = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!npm.waitFor(300, TimeUnit.SECONDS) || npm.exitValue() != 0) {
            npm.destroyForcibly();
            throw new IllegalStateException("npm ci failed in " + DIR + ":\n" + output);
        }
    }

    /** Runs a script with its arguments and returns its standard output (failing on a non-zero exit). */
    static String run(String script, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("node", script));
        command.addAll(List.of(args));
        Path errors = Files.createTempFile("node-client", ".err");
        Process node = new ProcessBuilder(command).directory(DIR.toFile())
                .redirectError(errors.toFile()).start();
        String out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!node.waitFor(300, TimeUnit.SECONDS)) {
            node.destroyForcibly();
            throw new IllegalStateException(script + " did not end");
        }
        String err = Files.readString(errors);
        Files.delete(errors);
        if (node.exitValue() != 0) {
            throw new IllegalStateException(script + " failed (exit " + node.exitValue() + "):\n" + err + "\n" + out);
        }
        return out;
    }
}
