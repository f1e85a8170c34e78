package io.trailproof.bench;

import io.trailproof.core.capture.CaptureFacts;
import io.trailproof.core.capture.CaptureState;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.List;
import java.util.Locale;

/**
 * The heap that gap detection's state takes for many capture streams (src/site/completeness.md#gaps;
 * goal: 1,000,000 capture ids in at most 64 MB): heap used after a full GC with the state built,
 * less the heap used after a full GC before, for streams that are open (one event seen), ended (their
 * last event seen, no hole) and open with one unreported hole each in one in a hundred.
 *
 * <pre>
 *   java -cp bench/target/trailproof-bench.jar io.trailproof.bench.CaptureStateHeapBench [--streams N]
 * </pre>
 */
public final class CaptureStateHeapBench {

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--streams");
        int streams = (int) a.longOption("--streams", 1_000_000);
        System.out.printf(Locale.ROOT, "%n| capture streams (%,d) | heap | bytes a stream | goal |%n|---|---|---|---|%n", streams);
        for (String kind : List.of("open", "ended", "open, 1% with a hole")) {
            long before = usedAfterGc();
            CaptureState s = build(kind, streams);
            long after = usedAfterGc();
            long bytes = after - before;
            System.out.printf(Locale.ROOT, "| %s | %.1f MB | %.1f | <= 64 MB |%n", kind, bytes / 1e6, (double) bytes / streams);
            if (s.openStreams() + s.closedStreams() != streams) {
                throw new IllegalStateException("the state lost streams");
            }
        }
    }

    private static CaptureState build(String kind, int streams) {
        CaptureState s = new CaptureState();
        for (int i = 0; i < streams; i++) {
            String id = "py-" + Long.toHexString(0x1000_0000_0000_0000L + i * 0x9E37_79B9L) + "0123456789abcdef";
            String agent = "agent-" + (i % 1000);
            boolean hole = kind.contains("hole") && i % 100 == 0;
            s.apply(new CaptureFacts(agent, "session-" + (i % 5000), id, hole ? 3 : 1, kind.equals("ended"), null,
                    "2026-03-01T10:00:00.000000Z", null, List.of()));
        }
        return s;
    }

    private static long usedAfterGc() throws InterruptedException {
        MemoryMXBean m = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return m.getHeapMemoryUsage().getUsed();
    }
}
