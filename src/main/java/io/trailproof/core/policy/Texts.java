package io.trailproof.core.policy;

import java.time.Instant;

/** How messages write durations and instants. */
final class Texts {

    private Texts() {
    }

    /** A duration in milliseconds in the largest unit that divides it: 60000 is "1m", 1500 is "1500ms". */
    static String duration(long millis) {
        long[] units = {86_400_000, 3_600_000, 60_000, 1_000};
        String[] names = {"d", "h", "m", "s"};
        for (int i = 0; i < units.length; i++) {
            if (millis % units[i] == 0) {
                return millis / units[i] + names[i];
            }
        }
        return millis + "ms";
    }

    static String instant(long epochMicros) {
        return Instant.ofEpochSecond(Math.floorDiv(epochMicros, 1_000_000),
                Math.floorMod(epochMicros, 1_000_000) * 1_000L).toString();
    }
}
