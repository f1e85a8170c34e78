package io.trailproof.http;

import com.fasterxml.jackson.core.JsonGenerator;
import io.trailproof.core.event.EventTime;
import io.trailproof.index.MatchSummary;
import io.trailproof.index.SummaryRequest;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code facets=} and {@code histogram=} of {@code GET /v1/search} (src/site/console.md): the parameters
 * checked into a {@link SummaryRequest}, and the summary written into the answer.
 */
final class SummaryParams {

    static final String FACETS = "facets";
    static final String HISTOGRAM = "histogram";

    /** {@code PnW}: weeks are a fixed length, but {@link Duration#parse} does not read them. */
    private static final Pattern WEEKS = Pattern.compile("[Pp]([0-9]{1,6})[Ww]");

    private SummaryParams() {
    }

    static SummaryRequest of(Params params) throws ApiException {
        return new SummaryRequest(facets(params.optional(FACETS)), histogram(params.optional(HISTOGRAM)));
    }

    private static List<String> facets(String text) throws ApiException {
        if (text == null) {
            return List.of();
        }
        List<String> fields = new ArrayList<>();
        for (String f : text.split(",", -1)) {
            String field = f.strip();
            if (!SummaryRequest.facetable(field)) {
                throw ApiException.badRequest("parameter facets names '" + Params.shorten(field) + "', which cannot be "
                        + "counted; give a comma list of " + String.join(", ", SummaryRequest.fixedFields())
                        + " and label.{key}");
            }
            if (fields.contains(field)) {
                throw ApiException.badRequest("parameter facets names " + Params.shorten(field) + " twice");
            }
            fields.add(field);
        }
        if (fields.size() > SummaryRequest.MAX_FACETS) {
            throw ApiException.badRequest("parameter facets names " + fields.size() + " fields; the limit is "
                    + SummaryRequest.MAX_FACETS);
        }
        return fields;
    }

    /** An ISO 8601 duration of fixed length: days, hours, minutes, seconds ({@code PT15M}, {@code P1D}), or weeks. */
    static Duration histogram(String text) throws ApiException {
        if (text == null) {
            return null;
        }
        Duration d;
        Matcher weeks = WEEKS.matcher(text);
        try {
            d = weeks.matches() ? Duration.ofDays(7 * Long.parseLong(weeks.group(1))) : Duration.parse(text);
        } catch (DateTimeParseException | ArithmeticException e) {
            String upper = text.toUpperCase(Locale.ROOT);
            String datePart = upper.indexOf('T') < 0 ? upper : upper.substring(0, upper.indexOf('T'));
            if (upper.startsWith("P") && (datePart.contains("Y") || datePart.contains("M"))) {
                throw ApiException.badRequest("parameter histogram is '" + Params.shorten(text) + "': months and years "
                        + "have no fixed length; give days instead, e.g. P30D");
            }
            throw ApiException.badRequest("parameter histogram must be an ISO 8601 duration such as PT1M, PT1H or P1D, "
                    + "got '" + Params.shorten(text) + "'");
        }
        if (d.isNegative() || d.isZero()) {
            throw ApiException.badRequest("parameter histogram must be a positive duration, got '" + Params.shorten(text)
                    + "'");
        }
        if (d.getNano() % 1_000 != 0) {
            throw ApiException.badRequest("parameter histogram must be whole microseconds (event times have that "
                    + "precision), got '" + Params.shorten(text) + "'");
        }
        if (d.getSeconds() > SummaryRequest.MAX_SECONDS) {
            throw ApiException.badRequest("parameter histogram is longer than the longest bucket, "
                    + SummaryRequest.MAX_SECONDS / 86_400 + " days");
        }
        return d;
    }

    /** Writes {@code "facets"} and {@code "histogram"} as asked (nothing when neither was). */
    static void write(JsonGenerator g, SummaryRequest asked, MatchSummary summary) throws IOException {
        if (summary == null) {
            return;
        }
        if (!asked.facets().isEmpty()) {
            g.writeObjectFieldStart(FACETS);
            for (Map.Entry<String, List<MatchSummary.FacetCount>> field : summary.facets().entrySet()) {
                g.writeArrayFieldStart(field.getKey());
                for (MatchSummary.FacetCount c : field.getValue()) {
                    g.writeStartObject();
                    g.writeStringField("value", c.value());
                    g.writeNumberField("count", c.count());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        }
        if (asked.histogram() != null) {
            g.writeArrayFieldStart(HISTOGRAM);
            for (MatchSummary.Bucket b : summary.histogram()) {
                g.writeStartObject();
                g.writeStringField("start", EventTime.formatRecordedAt(Instant.EPOCH.plus(b.startMicros(),
                        ChronoUnit.MICROS)));
                g.writeNumberField("count", b.count());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
    }
}
