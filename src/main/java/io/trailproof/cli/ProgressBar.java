package io.trailproof.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A one-line progress bar on standard error: done/total, rate and time left. Redraws at most a few
 * times a second; prints nothing when standard error is not a terminal unless forced, so scripts
 * and logs stay clean.
 */
final class ProgressBar {

    private static final int WIDTH = 30;

    private final PrintStream out;
    private final String unit;
    private final LongSupplier nanoClock;
    private final boolean enabled;
    private final long started;
    private long total;
    private long lastDraw;

    ProgressBar(PrintStream out, String unit, long total, boolean enabled, LongSupplier nanoClock) {
        this.out = out;
        this.unit = unit;
        this.total = total;
        this.enabled = enabled;
        this.nanoClock = nanoClock;
        this.started = nanoClock.getAsLong();
    }

    /** A bar on standard error, shown when it is a terminal. */
    static ProgressBar onStderr(String unit, long total) {
        return new ProgressBar(System.err, unit, total, System.console() != null, System::nanoTime);
    }

    void total(long newTotal) {
        total = newTotal;
    }

    void update(long done) {
        long now = nanoClock.getAsLong();
        if (!enabled || now - lastDraw < 200_000_000L) {
            return;
        }
        lastDraw = now;
        out.print("\r" + line(done, now));
        out.flush();
    }

    void finish(long done) {
        if (enabled) {
            out.print("\r" + line(done, nanoClock.getAsLong()) + "\n");
            out.flush();
        }
    }

    /** The text of the bar, e.g. {@code [#######.......]  45%  12,345/27,000 events  3,210/s  1m05s left}. */
    String line(long done, long nowNanos) {
        double seconds = Math.max(1e-9, (nowNanos - started) / 1e9);
        double rate = done / seconds;
        StringBuilder b = new StringBuilder();
        if (total > 0) {
            int filled = (int) Math.min(WIDTH, WIDTH * done / total);
            b.append('[').append("#".repeat(filled)).append(".".repeat(WIDTH - filled)).append("] ");
            b.append(String.format("%3d%%  ", Math.min(100, 100 * done / total)));
            b.append(String.format("%,d/%,d %s", done, total, unit));
        } else {
            b.append(String.format("%,d %s", done, unit));
        }
        b.append(String.format("  %,.0f/s", rate));
        if (total > 0 && rate > 0 && done < total) {
            b.append("  ").append(human(Duration.ofSeconds((long) ((total - done) / rate)))).append(" left");
        }
        return b.toString();
    }

    private static String human(Duration d) {
        long s = d.getSeconds();
        return s >= 3600 ? String.format("%dh%02dm", s / 3600, (s % 3600) / 60)
                : s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : s + "s";
    }
}
