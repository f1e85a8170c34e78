package io.trailproof.ledger;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * What an erasure is asked to do, resolved to log indexes (src/site/erasure.md): everything the
 * erasure event is made from, so that applying the same order to the same log gives the same
 * bytes. In cluster mode it travels in a record of the topic and every node applies it at the
 * same position; which of the candidates are still unerased is decided there, when it is applied.
 *
 * @param candidates log indexes the selector named (erasure events among them are never erased)
 * @param fields the client fields to remove
 * @param reason why (kept in the erasure event)
 * @param keyName the name of the API key that asked, or null
 * @param selector what the request selected by (kept in the erasure event)
 * @param listIds whether the erasure event lists the erased events' ids (false for a retention pass,
 *     whose ids would not fit one event; then nothing to erase records nothing)
 */
public record ErasureOrder(LogRanges candidates, List<String> fields, String reason, String keyName, ObjectNode selector,
                           boolean listIds) {

    public ErasureOrder {
        fields = List.copyOf(fields);
        selector = selector.deepCopy();
    }

    @Override
    public ObjectNode selector() {
        return selector.deepCopy();
    }
}
