package io.trailproof.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the packaged {@code trailproof} command as a separate process, as a user would. */
public final class Cli {

    private Cli() {
    }

    /** Exit code and what the command printed. */
    public record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    public static Run run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ServerProcess.launcher().toString());
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("trailproof-cli", ".out");
        Path err = Files.createTempFile("trailproof-cli", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().remove("TRAILPROOF_URL");
            pb.environment().remove("TRAILPROOF_API_KEY");
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("trailproof " + String.join(" ", args) + " did not finish");
            }
            return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    public static Run run(String... args) throws IOException, InterruptedException {
        return run(Map.of(), args);
    }
}
