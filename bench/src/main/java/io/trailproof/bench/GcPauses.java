package io.trailproof.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The pauses a server's GC log ({@code -Xlog:gc:file=...}) records from a point on: how many, and the
 * longest, so that a latency tail can be set beside the collections that ran while it was measured.
 */
final class GcPauses {

    /** A unified-logging pause line: {@code [12.345s][info][gc] GC(7) Pause Young (Normal) (G1 Evacuation Pause) 40M->12M(512M) 3.456ms}. */
    private static final Pattern PAUSE = Pattern.compile("Pause.* ([0-9.]+)ms");

    private final Path log;
    private final long from;

    private GcPauses(Path log, long from) {
        this.log = log;
        this.from = from;
    }

    /** What the pauses logged in {@code log} from now on will be counted from. */
    static GcPauses from(Path log) throws IOException {
        return new GcPauses(log, Files.exists(log) ? Files.size(log) : 0);
    }

    record Seen(int count, double longestMs) {
    }

    /** The pauses logged since {@link #from}. */
    Seen since() throws IOException {
        if (!Files.exists(log)) {
            return new Seen(0, 0);
        }
        byte[] all = Files.readAllBytes(log);
        String text = new String(all, (int) Math.min(from, all.length), (int) Math.max(0, all.length - from),
                StandardCharsets.UTF_8);
        int count = 0;
        double longest = 0;
        for (String line : text.split("\n")) {
            Matcher m = PAUSE.matcher(line);
            if (m.find()) {
                count++;
                longest = Math.max(longest, Double.parseDouble(m.group(1)));
            }
        }
        return new Seen(count, longest);
    }
}
