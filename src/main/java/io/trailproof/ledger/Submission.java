package io.trailproof.ledger;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.redaction.Redactor;

import java.util.ArrayList;
import java.util.List;

/**
 * Client fields on their way to the sequencer: validated, redacted when redaction is on
 * (src/site/redaction.md), and how many bytes redaction added to their canonical form. The size limit applies to the
 * event as sent, so the sealer allows that many more; redaction never makes an event invalid.
 */
public record Submission(ObjectNode fields, int sizeAllowance) {

    /** {@code fields} as they will be sealed: redacted by {@code redactor} when it is not null. */
    public static Submission of(ObjectNode fields, Redactor redactor) {
        if (redactor == null) {
            return new Submission(fields, 0);
        }
        Redactor.Redacted r = redactor.redact(fields);
        return new Submission(r.fields(), Math.max(0, r.addedBytes()));
    }

    public static List<Submission> of(List<ObjectNode> events, Redactor redactor) {
        List<Submission> out = new ArrayList<>(events.size());
        for (ObjectNode e : events) {
            out.add(of(e, redactor));
        }
        return out;
    }
}
