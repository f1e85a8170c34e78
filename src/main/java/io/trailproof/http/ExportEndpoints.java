package io.trailproof.http;

import io.trailproof.core.event.EventTime;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.export.EvidencePackageWriter;
import io.trailproof.export.PackageTimestamps;
import io.trailproof.export.TimestampSource;
import io.trailproof.ledger.ChainSlice;
import io.trailproof.ledger.Ledger;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import org.xnio.IoUtils;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.function.LongFunction;

/** {@code GET /v1/export}: the evidence package of one agent's chain or of a time slice of it (src/site/evidence-format.md). */
final class ExportEndpoints {

    private static final System.Logger LOG = System.getLogger(ExportEndpoints.class.getName());
    private static final DateTimeFormatter FILE_DATE = DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC);
    /** Longest agent id part of a file name, so that names stay within every file system's limit. */
    private static final int MAX_NAME_PART = 100;

    private final Ledger ledger;
    private final TimestampSource timestamps;

    // The signed checkpoint note for a tree size (src/site/checkpoints.md); empty when none can be had.
    private final LongFunction<Optional<String>> checkpoints;

    ExportEndpoints(Ledger ledger, TimestampSource timestamps, LongFunction<Optional<String>> checkpoints) {
        this.ledger = ledger;
        this.timestamps = timestamps;
        this.checkpoints = checkpoints;
    }

    void register(Router router) {
        router.get("/v1/export", (ex, p) -> export(ex));
    }

    private void export(HttpServerExchange ex) throws Exception {
        Params params = new Params(ex);
        String agentId = params.required("agent_id");
        String since = params.optional("since");
        String until = params.optional("until");
        Instant from = time("since", since);
        Instant to = time("until", until);
        if (from != null && to != null && from.isAfter(to)) {
            throw ApiException.badRequest("since (" + since + ") is after until (" + until + "); give a window whose "
                    + "start is not after its end");
        }
        ChainSlice slice = ledger.slice(agentId, from, to)
                .orElseThrow(() -> ApiException.notFound("no agent with id " + Params.shorten(agentId)));
        List<TimestampRecord> stamps = PackageTimestamps.forSlice(slice, timestamps);
        AccessRecording.results(ex, slice.length());
        ex.setStatusCode(200);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        ex.getResponseHeaders().put(Headers.CONTENT_DISPOSITION, "attachment; filename=\"" + fileName(agentId,
                slice.takenAt()) + "\"");
        OutputStream out = new BufferedOutputStream(ex.getOutputStream(), 64 * 1024);
        try {
            EvidencePackageWriter.write(slice, stamps, checkpoints.apply(slice.treeSize()).orElse(null), since, until,
                    out);
            out.flush();
        } catch (IOException | RuntimeException e) {
            // The answer has started: a status can no longer say so. Cutting the connection makes the
            // client see an incomplete transfer rather than a document that merely ends early.
            LOG.log(System.Logger.Level.WARNING, "export of agent " + agentId + " failed after it started: " + e);
            IoUtils.safeClose(ex.getConnection());
            return;
        }
        out.close();
    }

    private static Instant time(String name, String value) throws ApiException {
        if (value == null) {
            return null;
        }
        try {
            return EventTime.parseTimestamp(value);
        } catch (DateTimeParseException e) {
            throw ApiException.badRequest("parameter " + name + " must be an ISO 8601 date-time such as "
                    + "2026-01-31T09:00:00Z, got '" + Params.shorten(value) + "'");
        }
    }

    /** {@code evidence-<agent>-<yyyymmdd>.json}, with every character unsafe in a file name replaced. */
    static String fileName(String agentId, Instant at) {
        StringBuilder safe = new StringBuilder();
        for (int i = 0; i < agentId.length() && safe.length() < MAX_NAME_PART; i++) {
            char c = agentId.charAt(i);
            safe.append((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '_' || (c == '.' && i > 0) ? c : '_');
        }
        return "evidence-" + safe + "-" + FILE_DATE.format(at) + ".json";
    }
}
