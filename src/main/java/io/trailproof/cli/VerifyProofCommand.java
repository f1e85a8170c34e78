package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.evidence.EventTlogProof;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.TlogRejection;
import io.trailproof.core.note.VerifierKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code trailproof verify-proof FILE --log-key VKEY [--witness-key VKEY ...] [--event FILE.json]}:
 * verifies a tlog-proof offline (src/site/checkpoints.md). Exit 0 valid, 1 invalid, 2 bad usage (an unreadable
 * file or a malformed key).
 */
final class VerifyProofCommand implements CliCommand {

    static final ParameterSpec FILE = ParameterSpec.required(ValueType.PATH, "FILE",
            "The proof (from trailproof proof).");
    Path file;

    static final OptionSpec LOG_KEY = OptionSpec.text("VKEY", "The log's verifier key (GET "
            + "/v1/checkpoint/key, field vkey).",
            "--log-key").required();
    String logKey;

    static final OptionSpec WITNESS_KEYS = OptionSpec.text("VKEY", "A witness's cosignature key (type "
            + "0x04); each one given must have cosigned.",
            "--witness-key").repeatable();
    List<String> witnessKeys;

    static final OptionSpec EVENT = OptionSpec.value(ValueType.PATH, "FILE.json", "The event's JSON, as the "
            + "API returns it.",
            "--event");
    Path event;

    @Override
    public CommandSpec spec() {
        return new CommandSpec("verify-proof", "Verify an event's tlog-proof offline: the log's signature, "
                + "every given witness's "
                + "cosignature, the inclusion proof and, with --event, the event's hash.")
                .parameter(FILE).option(LOG_KEY).option(WITNESS_KEYS).option(EVENT);
    }

    @Override
    public int run(Arguments args, Streams io) {
        file = args.path(FILE);
        logKey = args.text(LOG_KEY);
        witnessKeys = args.texts(WITNESS_KEYS) != null ? args.texts(WITNESS_KEYS) : new ArrayList<>();
        event = args.path(EVENT);
        NoteVerifier log;
        List<NoteVerifier> witnesses = new ArrayList<>();
        byte[] proof;
        JsonNode json = null;
        try {
            log = VerifierKey.parse(logKey);
            for (String w : witnessKeys) {
                witnesses.add(VerifierKey.parse(w));
            }
            proof = Files.readAllBytes(file);
            if (event != null) {
                json = StrictJson.parse(Files.readAllBytes(event), 64);
            }
        } catch (TlogRejection | IOException | JsonRejection e) {
            System.err.println("trailproof: " + e.getMessage());
            return Main.BAD_USAGE;
        }
        try {
            EventTlogProof.Result r = EventTlogProof.verify(proof, log, witnesses, json);
            System.out.println("VALID: event " + r.eventId() + " (hash " + r.eventHash() + ") is entry " + r.index()
                    + " of " + r.verified().checkpoint().origin() + " at tree size " + r.verified().checkpoint().size());
            System.out.println("  signed by the log key " + log.name()
                    + (r.witnesses().isEmpty() ? "" : "; cosigned by " + String.join(", ", r.witnesses())));
            System.out.println("  event JSON: " + (json == null ? "not checked (pass --event FILE.json)"
                    : "hash recomputed and matches"));
            return 0;
        } catch (TlogRejection e) {
            System.out.println("INVALID (" + e.kind().name().toLowerCase(Locale.ROOT) + "): " + e.getMessage());
            return 1;
        }
    }
}
