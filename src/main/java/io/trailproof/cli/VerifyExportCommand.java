package io.trailproof.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.TlogRejection;
import io.trailproof.core.note.VerifierKey;

import io.trailproof.core.evidence.CaptureSummary;
import io.trailproof.core.evidence.EvidenceReport;
import io.trailproof.core.evidence.EvidenceReportWriter;
import io.trailproof.core.evidence.EvidenceVerifier;
import io.trailproof.core.evidence.CheckResult;
import io.trailproof.core.evidence.EvidenceCheck;
import io.trailproof.core.evidence.Rfc3161TokenChecker;
import io.trailproof.core.evidence.TokenChecker;
import io.trailproof.timestamp.TrustAnchors;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code trailproof verify-export FILE}: verifies an evidence package offline, with nothing but the
 * file (and trust anchors for timestamp tokens). Exit 0 valid, 1 invalid, 2 unreadable or bad usage.
 */
final class VerifyExportCommand implements CliCommand {

    static final ParameterSpec FILE = ParameterSpec.required(ValueType.PATH, "FILE",
            "The evidence package (from trailproof export or GET /v1/export).");
    Path file;

    static final OptionSpec JSON = OptionSpec.flag("Print the report as JSON.",
            "--json");
    boolean json;

    static final OptionSpec TRUST_ANCHORS = OptionSpec.value(ValueType.PATH, "PEM", "PEM files with trust "
            + "anchors for the timestamp authorities' certificates "
                    + "(the JDK trust store always counts).",
            "--trust-anchors").split(",");
    List<Path> trustAnchors;

    static final OptionSpec LOG_KEY = OptionSpec.text("VKEY", "The log's verifier key (GET /v1/checkpoint/key, "
            + "field vkey): checks the package's signed checkpoint. Without it that check is reported as not done.",
            "--log-key");
    String logKey;

    @Override
    public CommandSpec spec() {
        return new CommandSpec("verify-export", "Verify an evidence package offline and say what it proves. "
                + "Exit 0 valid, 1 invalid, "
                + "2 unreadable file or bad usage.")
                .parameter(FILE).option(JSON).option(TRUST_ANCHORS).option(LOG_KEY);
    }

    @Override
    public int run(Arguments args, Streams io) {
        file = args.path(FILE);
        json = args.flag(JSON);
        trustAnchors = args.paths(TRUST_ANCHORS) != null ? args.paths(TRUST_ANCHORS) : List.of();
        logKey = args.text(LOG_KEY);
        for (Path pem : trustAnchors) {
            if (!Files.isReadable(pem)) {
                System.err.println("trailproof: cannot read the trust anchors file " + pem);
                return Main.BAD_USAGE;
            }
        }
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            System.err.println("trailproof: cannot read " + file + ": " + (Files.exists(file) ? "not a readable file"
                    : "no such file"));
            return Main.BAD_USAGE;
        }
        NoteVerifier logVerifier = null;
        if (logKey != null) {
            try {
                logVerifier = VerifierKey.parse(logKey);
            } catch (TlogRejection e) {
                System.err.println("trailproof: --log-key: " + e.getMessage());
                return Main.BAD_USAGE;
            }
        }
        TokenChecker tokens;
        try {
            tokens = tokenChecker(trustAnchors);
        } catch (IOException e) {
            System.err.println("trailproof: " + e.getMessage());
            return Main.BAD_USAGE;
        }
        EvidenceReport report;
        // Completeness by capture sequence (src/site/evidence-format.md#capture): a fact of the trail, never a failure.
        CaptureSummary captureSummary = new CaptureSummary();
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            report = new EvidenceVerifier(tokens, logVerifier).verify(in, captureSummary::event);
        } catch (IOException e) {
            System.err.println("trailproof: cannot read " + file + ": " + e.getMessage());
            return Main.BAD_USAGE;
        } catch (UncheckedIOException e) {
            // The JDK trust store, read only when the package holds a timestamp, could not be read:
            // the same message and exit code as when it was read before the package.
            System.err.println("trailproof: " + e.getCause().getMessage());
            return Main.BAD_USAGE;
        }
        String capture = report.verdict() == EvidenceReport.Verdict.UNREADABLE ? null : captureSummary.line();
        // Gates (src/site/gates.md): the decisions of the package, stated by the gate_bindings check.
        String gates = report.check(EvidenceCheck.GATE_BINDINGS).filter(c -> !c.failed()).map(CheckResult::detail)
                .orElse(null);
        if (json) {
            ObjectNode out = EvidenceReportWriter.json(report);
            if (capture != null) {
                out.put("capture", capture);
            }
            if (gates != null) {
                out.put("gates", gates);
            }
            System.out.println(PrettyJson.of(out));
        } else {
            System.out.print(EvidenceReportWriter.text(report));
            if (capture != null) {
                System.out.println();
                System.out.println(capture);
            }
            if (gates != null) {
                System.out.println(gates);
            }
        }
        return switch (report.verdict()) {
            case VALID -> 0;
            case INVALID -> 1;
            case UNREADABLE -> Main.BAD_USAGE;
        };
    }

    /**
     * The RFC 3161 checker with the JDK trust store plus the given PEM files as anchors (src/site/evidence-format.md). A
     * chain that reaches none of them fails, and the report says how to pass the TSA's root.
     */
    static TokenChecker tokenChecker(List<Path> pems) throws IOException {
        String advice = pems.isEmpty()
                ? "only the JDK trust store was used: if you trust this TSA, pass its root certificate with "
                + "--trust-anchors FILE.pem"
                : "the anchors were the JDK trust store and " + pems.stream().map(Path::toString)
                .collect(Collectors.joining(", ")) + ": pass the TSA's root certificate with --trust-anchors "
                + "if you trust it";
        // The PEM files are read (and refused) now; the JDK trust store only for a package that holds a timestamp.
        return new Rfc3161TokenChecker(TrustAnchors.jdkPlusOnFirstUse(pems), advice);
    }
}
