package io.trailproof.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Which CPUs a bench's processes run on. {@code shared}: every process on every CPU this bench may
 * use (the default, what the machine does by itself). {@code split}: the trailproof server on the
 * first of those CPUs alone, and the calls' processes (this JVM, with its client and fake upstream,
 * and the processes started through {@link #callsLauncher()}) on the others, through {@code taskset}:
 * the placement of a deployment where the audit server is a service of its own and what serves the
 * calls runs beside the agent.
 *
 * @param name {@code shared} or {@code split}
 * @param serverLauncher the command prefix that starts the server on its CPUs (empty when shared)
 * @param callsLauncher the command prefix that starts a calls' process on the calls' CPUs (empty when shared)
 */
record CpuPlacement(String name, List<String> serverLauncher, List<String> callsLauncher) {

    /**
     * The placement {@code name}; for {@code split}, also moves every thread of this JVM to the calls'
     * CPUs (threads it starts later inherit them).
     */
    static CpuPlacement of(String name) throws IOException, InterruptedException {
        switch (name) {
            case "shared":
                return new CpuPlacement(name, List.of(), List.of());
            case "split":
                break;
            default:
                throw new IllegalArgumentException("--placement is shared or split, got " + name);
        }
        List<Integer> cpus = cpus(allowed(ProcessHandle.current().pid()));
        if (cpus.size() < 2) {
            throw new IllegalStateException("--placement split needs 2 CPUs or more; this process may use " + cpus);
        }
        String server = Integer.toString(cpus.get(0));
        String calls = cpus.subList(1, cpus.size()).stream().map(String::valueOf).collect(Collectors.joining(","));
        run("taskset", "-a", "-p", "-c", calls, Long.toString(ProcessHandle.current().pid()));
        return new CpuPlacement(name, List.of("taskset", "-c", server), List.of("taskset", "-c", calls));
    }

    /** The CPUs process {@code pid} may run on, as the kernel lists them ({@code 0-1}, {@code 1}). */
    static String allowed(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"), StandardCharsets.UTF_8)) {
            if (line.startsWith("Cpus_allowed_list:")) {
                return line.substring(line.indexOf(':') + 1).strip();
            }
        }
        throw new IOException("/proc/" + pid + "/status has no Cpus_allowed_list");
    }

    private static List<Integer> cpus(String list) {
        List<Integer> out = new ArrayList<>();
        for (String part : list.split(",")) {
            String[] range = part.split("-");
            int from = Integer.parseInt(range[0]);
            int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
            for (int c = from; c <= to; c++) {
                out.add(c);
            }
        }
        return out;
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed (is taskset installed? Debian package util-linux): " + out);
        }
    }
}
