package io.trailproof.index;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a search found about all its matches besides the page (src/site/console.md). Counts are exact.
 *
 * @param facets    per requested field, its most frequent values (count above 0), most frequent
 *                  first, ties in value order; in the order the fields were asked
 * @param histogram per bucket from the first with a match to the last, empty ones included; empty
 *                  when nothing matched or no histogram was asked
 */
public record MatchSummary(Map<String, List<FacetCount>> facets, List<Bucket> histogram) {

    public MatchSummary {
        facets = Collections.unmodifiableMap(new LinkedHashMap<>(facets));
        histogram = List.copyOf(histogram);
    }

    /** One value of a field and how many matches hold it. */
    public record FacetCount(String value, long count) {
    }

    /** A time bucket: its start in epoch microseconds (a multiple of the width) and the matches in it. */
    public record Bucket(long startMicros, long count) {
    }
}
