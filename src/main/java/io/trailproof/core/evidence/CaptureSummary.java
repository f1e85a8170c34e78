package io.trailproof.core.evidence;

import static io.trailproof.core.event.EventFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.StoredEvent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The capture line of {@code verify-export} (src/site/evidence-format.md#capture): whether the
 * package's events are complete by their capture sequences. A gap is a range of {@code capture_seq}
 * numbers that a {@code GAP} event of the package records as missing, or that is missing between the
 * lowest and highest number of a {@code capture_id} in the package and recorded by no {@code GAP}
 * there (a hole the service had not reported yet when the package was written). A recorded gap that
 * later events of the package fill is still listed, marked {@code filled later}: it records what was
 * missing when. This is a fact of the trail, never a failure of the package.
 */
public final class CaptureSummary {

    /** One gap of the package. */
    public record Gap(String captureId, long from, long to, boolean recorded, boolean filled) {
        @Override
        public String toString() {
            return captureId + " seq " + from + "-" + to + (filled ? " filled later" : "");
        }
    }

    private final Map<String, long[]> numbers = new TreeMap<>();
    private final Map<String, Integer> counts = new HashMap<>();
    private final List<Gap> recorded = new ArrayList<>();

    /** An empty summary, to be given each event of a package in order. */
    public CaptureSummary() {
    }

    /** One event of the package, in package order. */
    public void event(StoredEvent e) {
        add(e.json());
    }

    void add(JsonNode e) {
        if (GAP_ACTION_TYPE.equals(e.path(ACTION_TYPE).asText(null)) && !e.has(CAPTURE_ID)) {
            JsonNode out = e.path(ACTION_OUTPUT);
            String id = out.path("capture_id").asText(null);
            if (id != null) {
                for (JsonNode r : out.path("missing")) {
                    if (r.isArray() && r.size() == 2) {
                        recorded.add(new Gap(id, r.get(0).asLong(), r.get(1).asLong(), true, false));
                    }
                }
            }
            return;
        }
        if (e.path(CAPTURE_ID).isTextual() && e.path(CAPTURE_SEQ).canConvertToLong()) {
            String id = e.get(CAPTURE_ID).textValue();
            int n = counts.getOrDefault(id, 0);
            long[] a = numbers.computeIfAbsent(id, k -> new long[16]);
            if (n == a.length) {
                a = Arrays.copyOf(a, n * 2);
                numbers.put(id, a);
            }
            a[n] = e.get(CAPTURE_SEQ).longValue();
            counts.put(id, n + 1);
        }
    }

    /** Every gap: those recorded by {@code GAP} events first, in package order, then the unrecorded ones. */
    public List<Gap> gaps() {
        List<Gap> out = new ArrayList<>();
        Map<String, long[]> sorted = new HashMap<>();
        for (Map.Entry<String, long[]> e : numbers.entrySet()) {
            long[] a = Arrays.copyOf(e.getValue(), counts.get(e.getKey()));
            Arrays.sort(a);
            sorted.put(e.getKey(), a);
        }
        for (Gap g : recorded) {
            long[] a = sorted.get(g.captureId());
            out.add(new Gap(g.captureId(), g.from(), g.to(), true, a != null && holds(a, g.from(), g.to())));
        }
        for (Map.Entry<String, long[]> e : new TreeMap<>(sorted).entrySet()) {
            long[] a = e.getValue();
            for (int i = 1; i < a.length; i++) {
                if (a[i] > a[i - 1] + 1) {
                    long from = a[i - 1] + 1;
                    long to = a[i] - 1;
                    if (!coveredByRecord(e.getKey(), from, to)) {
                        out.add(new Gap(e.getKey(), from, to, false, false));
                    }
                }
            }
        }
        return out;
    }

    /** {@code capture: complete by sequence} or {@code capture: N gaps (capture_id seq from-to, ...)}. */
    public String line() {
        List<Gap> gaps = gaps();
        if (gaps.isEmpty()) {
            return "capture: complete by sequence";
        }
        List<String> parts = new ArrayList<>();
        for (Gap g : gaps) {
            parts.add(g.toString());
        }
        return "capture: " + gaps.size() + (gaps.size() == 1 ? " gap (" : " gaps (") + String.join(", ", parts) + ")";
    }

    private boolean coveredByRecord(String id, long from, long to) {
        for (Gap g : recorded) {
            if (g.captureId().equals(id) && g.from() <= from && g.to() >= to) {
                return true;
            }
        }
        return false;
    }

    /** Whether the sorted numbers hold every number of {@code [from, to]}. */
    private static boolean holds(long[] sorted, long from, long to) {
        int i = Arrays.binarySearch(sorted, from);
        if (i < 0) {
            return false;
        }
        long want = from;
        for (; i < sorted.length && want <= to; i++) {
            if (sorted[i] == want) {
                want++;
            } else if (sorted[i] > want) {
                return false;
            }
        }
        return want > to;
    }
}
