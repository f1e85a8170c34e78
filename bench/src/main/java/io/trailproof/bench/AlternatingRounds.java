package io.trailproof.bench;

import java.util.function.IntToLongFunction;

/**
 * Rounds of two kinds (0 and 1) in the order A B B A A B B A ..., so that neither kind always goes
 * first and drift on a shared machine hits both alike. Each round's server CPU is counted until that
 * server is quiet again, so the work that trails a round (indexing) is charged to that round.
 */
final class AlternatingRounds {

    private static final int[] ORDER = {0, 1, 1, 0, 0, 1, 1, 0};

    /** Runs one round of {@code kind}; returns the events it sent. */
    @FunctionalInterface
    interface Round {
        long run(int kind) throws Exception;
    }

    /** Per kind: events sent, seconds spent sending them, server CPU nanoseconds. */
    record Totals(long[] events, double[] seconds, long[] cpuNanos) {
        double rate(int kind) {
            return events[kind] / seconds[kind];
        }

        double cpuMicrosPerEvent(int kind) {
            return cpuNanos[kind] / 1e3 / events[kind];
        }
    }

    private AlternatingRounds() {
    }

    /** {@code rounds} rounds of each kind; {@code serverPid} names the server a kind's rounds go to. */
    static Totals run(int rounds, IntToLongFunction serverPid, Round round) throws Exception {
        Totals t = new Totals(new long[2], new double[2], new long[2]);
        for (int r = 0; r < 2 * rounds; r++) {
            int kind = ORDER[r % ORDER.length];
            long pid = serverPid.applyAsLong(kind);
            long c0 = ServerProbe.cpuNanos(pid)[0];
            long t0 = System.nanoTime();
            t.events()[kind] += round.run(kind);
            t.seconds()[kind] += (System.nanoTime() - t0) / 1e9;
            ServerProbe.awaitQuiet(pid);
            t.cpuNanos()[kind] += ServerProbe.cpuNanos(pid)[0] - c0;
        }
        return t;
    }
}
