package io.trailproof.bench;

import com.sun.management.OperatingSystemMXBean;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the benchmarks read of the server process from outside it: CPU time, idleness, heap and RSS. */
final class ServerProbe {

    private ServerProbe() {
    }

    /**
     * Waits until the server is idle (under 5% of a core over a second, at most 5 minutes): after a
     * large ingest Lucene goes on merging segments in the background for a while, and on 2 cores
     * a merge would make every latency measured meanwhile a measure of the merge.
     */
    static void awaitQuiet(long serverPid) throws Exception {
        long t0 = System.nanoTime();
        long last = cpuNanos(serverPid)[0];
        while (System.nanoTime() - t0 < 300_000_000_000L) {
            Thread.sleep(1000);
            long now = cpuNanos(serverPid)[0];
            if (now - last < 50_000_000L) {
                break;
            }
            last = now;
        }
        System.err.printf(Locale.ROOT, "server idle after %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    /** CPU time used so far by the server process (from /proc, clock ticks) and by this client JVM, in ns. */
    static long[] cpuNanos(long serverPid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + serverPid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
        long client = ((OperatingSystemMXBean) ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
        return new long[] {ticks * 10_000_000L, client};
    }

    /** Heap used after a full GC (jcmd) and RSS (/proc), in bytes. */
    static long[] memory(long pid) throws Exception {
        String javaCmd = ProcessHandle.of(pid).flatMap(h -> h.info().command()).orElseThrow();
        Path jcmd = Path.of(javaCmd).resolveSibling("jcmd");
        run(jcmd.toString(), Long.toString(pid), "GC.run");
        String info = run(jcmd.toString(), Long.toString(pid), "GC.heap_info");
        long used = 0;
        Matcher m = Pattern.compile("used (\\d+)K").matcher(info);
        if (m.find()) {
            used = Long.parseLong(m.group(1)) * 1024;
        }
        long rss = 0;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return new long[] {used, rss};
    }

    static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }
}
