package io.trailproof.index;

import java.io.IOException;

/**
 * A search stopped because whoever asked for it has gone ({@link IndexRequest#clientGone}): nobody
 * would read its answer, so it gives back the core it held (src/site/search.md#bounds). An
 * {@link IOException}: the exchange with the client ended under it.
 */
public final class SearchCancelledException extends IOException {
    public SearchCancelledException(String message) {
        super(message);
    }
}
