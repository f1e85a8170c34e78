package io.trailproof.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.cluster.AnswerSpec;
import io.trailproof.cluster.ClusterNode;
import io.trailproof.cluster.OutcomeUnknownException;
import io.trailproof.cluster.WriteTooLargeException;
import io.trailproof.ledger.DedupeKey;
import io.trailproof.ledger.DedupeTable;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.ledger.ReplicaOutcome;
import io.undertow.util.HttpString;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * {@code POST /v1/events}, {@code POST /v1/batch} and {@code POST /v1/traces} in cluster mode: the request's
 * validated events go to the topic ({@link ClusterNode#submit}); the answer is written from what
 * this node's apply loop did with the record, with {@code X-Tree-Size} (the size right after it),
 * which a client passes to another node as {@code min_tree_size} to read its own write there.
 */
final class ClusterWrites {

    static final HttpString TREE_SIZE = new HttpString("X-Tree-Size");

    private final ClusterNode node;
    private final IdempotentRequests idempotency;

    ClusterWrites(ClusterNode node, IdempotentRequests idempotency) {
        this.node = node;
        this.idempotency = idempotency;
    }

    /** One event; {@code claim} (or null) is released once the outcome is known. */
    CompletionStage<Router.Answer> single(ObjectNode fields, DedupeTable.Claim claim) {
        return answer(node.submit(List.of(fields), claim, new AnswerSpec.Single()), claim, outcome -> {
            AppendOutcome o = ((ReplicaOutcome.Stored) outcome).outcomes().get(0);
            return ex -> {
                ex.getResponseHeaders().put(TREE_SIZE, outcome.end());
                LedgerEndpoints.answerStored(ex, o);
            };
        });
    }

    /**
     * A batch: {@code valid} are the items that passed validation, at item indexes {@code validIndex};
     * {@code errors} holds the others' errors (not changed).
     */
    CompletionStage<Router.Answer> batch(List<ObjectNode> valid, List<Integer> validIndex, String[] errors,
                                         DedupeTable.Claim claim) {
        return answer(node.submit(valid, claim, new AnswerSpec.Batch(errors)), claim, outcome -> {
            List<AppendOutcome> stored = ((ReplicaOutcome.Stored) outcome).outcomes();
            String[] all = errors.clone();
            AppendOutcome[] byItem = new AppendOutcome[all.length];
            for (int j = 0; j < stored.size(); j++) {
                byItem[validIndex.get(j)] = stored.get(j);
            }
            boolean allOk = true;
            List<byte[]> events = new ArrayList<>(stored.size());
            for (int i = 0; i < all.length; i++) {
                if (byItem[i] == null || !byItem[i].ok()) {
                    allOk = false;
                    if (all[i] == null) {
                        all[i] = byItem[i].error();
                    }
                } else {
                    events.add(byItem[i].event().payload());
                }
            }
            int status = allOk ? 201 : 207;
            var body = BatchAnswer.write(all, events);
            return ex -> {
                ex.getResponseHeaders().put(TREE_SIZE, outcome.end());
                Responses.bytes(ex, status, body);
            };
        });
    }

    /**
     * The spans of one OTLP export ({@code POST /v1/traces}), on a worker thread: returns once this
     * node applied them, with each event's outcome (null for a span already stored) and the size
     * after them. No Idempotency-Key is involved: a resent export is deduplicated by its spans' marks.
     */
    ReplicaOutcome.Stored spans(List<ObjectNode> events, List<DedupeKey> marks) throws Exception {
        try {
            return (ReplicaOutcome.Stored) node.submitSpans(events, marks).get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof WriteTooLargeException t) {
                throw new ApiException(413, t.getMessage() + ": send the spans in smaller exports");
            }
            if (cause instanceof OutcomeUnknownException u) {
                throw new ApiException(503, "the outcome of this export is unknown: " + u.getMessage()
                        + ". Its spans may still be stored; send the export again (spans already stored are not "
                        + "stored twice)", Map.of("Retry-After", "5"));
            }
            if (cause instanceof Exception x) {
                throw x;
            }
            throw (Error) cause;
        }
    }

    @FunctionalInterface
    private interface StoredAnswer {
        Router.Answer of(ReplicaOutcome stored) throws Exception;
    }

    private CompletionStage<Router.Answer> answer(CompletableFuture<ReplicaOutcome> submitted, DedupeTable.Claim claim,
                                                  StoredAnswer stored) {
        return submitted.whenComplete((o, e) -> {
            if (claim != null) {
                claim.release();   // the key is in the table once applied; otherwise nothing was recorded here
            }
        }).handle((outcome, error) -> {
            try {
                if (error != null) {
                    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                    if (cause instanceof WriteTooLargeException t) {
                        throw new ApiException(413, t.getMessage());
                    }
                    if (cause instanceof OutcomeUnknownException u) {
                        throw new ApiException(503, "the outcome of this write is unknown: " + u.getMessage()
                                + ". It may still be stored; retry with the same Idempotency-Key (only a keyed retry "
                                + "is safe)", Map.of("Retry-After", "5"));
                    }
                    throw cause;
                }
                return switch (outcome) {
                    case ReplicaOutcome.Stored s -> stored.of(s);
                    case ReplicaOutcome.Replayed r -> {
                        Router.Answer replay = idempotency.replay(r.record().answer());
                        yield ex -> {
                            ex.getResponseHeaders().put(TREE_SIZE, r.end());
                            replay.write(ex);
                        };
                    }
                    case ReplicaOutcome.Erased e -> throw new IllegalStateException("a write was answered by an erasure");
                    case ReplicaOutcome.Conflicting c -> throw new ApiException(422, "this Idempotency-Key was already "
                            + "used with a different body; send the same body to get the recorded answer, or use a new key");
                };
            } catch (RuntimeException e) {
                throw e;
            } catch (Throwable t) {
                throw new CompletionException(t);
            }
        });
    }

    /** Waits for an answer on a worker thread; a failure is thrown as the endpoint's own. */
    Router.Answer await(CompletionStage<Router.Answer> answer) throws Exception {
        try {
            return answer.toCompletableFuture().get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof Exception x) {
                throw x;
            }
            throw (Error) cause;
        }
    }
}
