package io.trailproof.cli;

import java.util.List;

/**
 * The name a mistyped command or option most likely meant: the closest by edit distance (letters
 * inserted, removed or changed), if it is close enough to be a typing mistake rather than another word.
 */
final class Suggestion {

    /** Farther than this many edits, a name is not taken for a typo of another. */
    private static final int MAX_EDITS = 2;

    private Suggestion() {
    }

    /** The name of {@code names} closest to {@code given}, or null when none is within {@link #MAX_EDITS}. */
    static String closest(String given, List<String> names) {
        String best = null;
        int bestDistance = MAX_EDITS + 1;
        if (given.length() <= 2) {
            return null; // a one-letter option is no typo of another letter
        }
        for (String name : names) {
            if (name.length() <= 2) {
                continue;
            }
            int d = distance(given, name);
            if (d < bestDistance) {
                best = name;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Levenshtein distance, one row at a time. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int change = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(change, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
