package io.trailproof.core.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * The first {@link #LIMIT} violations of a rule in log order (by the log index of the event each
 * names, then in the order found): a rule that learns of a violation only at the end of the trail
 * (a call never answered, a name missing from a scope) still shows the earliest ones, and the
 * answer does not depend on when a rule found what. Holds at most {@code LIMIT} entries.
 */
final class ExampleList {

    static final int LIMIT = 20;

    private record Entry(Example example, long order) {
    }

    private static final Comparator<Entry> ORDER = Comparator.<Entry>comparingLong(e -> e.example().logIndex())
            .thenComparingLong(Entry::order);

    private final TreeSet<Entry> kept = new TreeSet<>(ORDER);
    private long found;

    void add(Example example) {
        Entry e = new Entry(example, found++);
        if (kept.size() < LIMIT) {
            kept.add(e);
        } else if (ORDER.compare(e, kept.last()) < 0) {
            kept.pollLast();
            kept.add(e);
        }
    }

    List<Example> list() {
        List<Example> out = new ArrayList<>(kept.size());
        kept.forEach(e -> out.add(e.example()));
        return out;
    }
}
