package io.trailproof.http;

import io.trailproof.cluster.AnswerBuilders;
import io.trailproof.cluster.AnswerSpec;
import io.trailproof.ledger.KeyedAnswer;
import io.trailproof.otlp.TraceIngest;

import java.util.ArrayList;
import java.util.List;

/**
 * The answers an idempotency key records (src/site/ingestion.md#idempotency), for a replica applying a replicated keyed
 * write (cluster mode): the same format {@link IdempotentRequests} records in the embedded mode;
 * and a span's mark ({@link TraceIngest#SPAN_MARK}) for the spans of an OTLP export.
 */
public final class RecordedAnswers implements AnswerBuilders {

    @Override
    public KeyedAnswer.AnswerBuilder builder(AnswerSpec spec) {
        return switch (spec) {
            case AnswerSpec.Single s -> IdempotentRequests::singleAnswer;
            case AnswerSpec.Batch b -> {
                String[] refused = b.refused();
                List<Integer> valid = new ArrayList<>();
                for (int i = 0; i < refused.length; i++) {
                    if (refused[i] == null) {
                        valid.add(i);
                    }
                }
                yield outcomes -> IdempotentRequests.batchAnswer(refused, valid, outcomes);
            }
            case AnswerSpec.Spans s -> TraceIngest.SPAN_MARK;
        };
    }
}
