package io.trailproof.index;

import java.time.Duration;
import java.util.List;

/**
 * What a search asks to be told about all its matches besides the page (src/site/console.md): value counts
 * for some fields ({@code facets}) and a count per time bucket of the event {@code timestamp}
 * ({@code histogram}). Either may be absent (an empty list, a null duration).
 *
 * @param facets   fields among {@link #facetable}, each at most once
 * @param histogram bucket width, whole microseconds, positive, at most {@link #MAX_SECONDS}; null for none
 */
public record SummaryRequest(List<String> facets, Duration histogram) {

    /** Values listed per facet field: the most frequent ones. */
    public static final int TOP_VALUES = 20;
    /** Most buckets a histogram may have between its first and last match; more is refused. */
    public static final int MAX_BUCKETS = 10_000;
    /** Longest bucket accepted (about 10,000 years): its width in microseconds stays far inside a long. */
    public static final long MAX_SECONDS = 10_000L * 366 * 86_400;
    /** Most fields one request may facet on. */
    public static final int MAX_FACETS = 16;

    private static final List<String> FIELDS = List.of(IndexFields.AGENT_ID, IndexFields.ACTION_TYPE,
            IndexFields.ACTION_STATUS, IndexFields.SOURCE);

    public SummaryRequest {
        facets = List.copyOf(facets);
        if (facets.size() > MAX_FACETS || facets.stream().distinct().count() != facets.size()
                || !facets.stream().allMatch(SummaryRequest::facetable)) {
            throw new IllegalArgumentException("facets must be at most " + MAX_FACETS + " distinct facetable fields");
        }
        if (histogram != null && (histogram.isNegative() || histogram.isZero() || histogram.getNano() % 1_000 != 0
                || histogram.getSeconds() > MAX_SECONDS)) {
            throw new IllegalArgumentException("a histogram bucket is a positive whole number of microseconds");
        }
    }

    /** True when nothing beyond the page is asked. */
    public boolean isEmpty() {
        return facets.isEmpty() && histogram == null;
    }

    /** Fields whose values can be counted: the exact keyword fields an investigator narrows by, and labels. */
    public static boolean facetable(String field) {
        return FIELDS.contains(field) || (field.startsWith(IndexFields.LABEL_PREFIX)
                && field.length() > IndexFields.LABEL_PREFIX.length());
    }

    /** The fixed facetable fields, in the order the API lists them; {@code label.<key>} is also accepted. */
    public static List<String> fixedFields() {
        return FIELDS;
    }
}
