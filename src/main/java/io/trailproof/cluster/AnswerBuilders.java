package io.trailproof.cluster;

import io.trailproof.ledger.KeyedAnswer;

/**
 * Turns a write's {@link AnswerSpec} into the builder of the answer its dedupe record holds; the
 * HTTP layer owns that format and supplies this (the apply loop runs below it).
 */
public interface AnswerBuilders {

    KeyedAnswer.AnswerBuilder builder(AnswerSpec spec);
}
