package io.trailproof.http;

import io.trailproof.ledger.LedgerUnavailableException;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HttpString;

import java.util.Map;
import java.util.UUID;

/**
 * The root handler: runs each request on a worker thread, routes it, and turns every outcome into
 * the CONTRACT 4.1 shape. A stack trace goes to the server log under a reference, never to the client.
 */
final class ApiHandler implements HttpHandler {

    private static final System.Logger LOG = System.getLogger(ApiHandler.class.getName());

    private final Router router;

    ApiHandler(Router router) {
        this.router = router;
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        if (ex.isInIoThread()) {
            ex.dispatch(this);
            return;
        }
        ex.startBlocking();
        try {
            Router.Match match = router.match(ex);
            match.route().endpoint().handle(ex, match.parameter());
        } catch (ApiException e) {
            for (Map.Entry<String, String> h : e.headers().entrySet()) {
                ex.getResponseHeaders().put(new HttpString(h.getKey()), h.getValue());
            }
            Responses.error(ex, e.status(), e.getMessage());
        } catch (LedgerUnavailableException e) {
            ex.getResponseHeaders().put(new HttpString("Retry-After"), "30");
            Responses.error(ex, 503, "the service cannot write now: " + e.getMessage());
        } catch (Exception | Error e) {
            String reference = UUID.randomUUID().toString();
            LOG.log(System.Logger.Level.ERROR, "internal error " + reference + " on " + ex.getRequestMethod() + " "
                    + ex.getRequestPath(), e);
            if (!ex.isResponseStarted()) {
                Responses.error(ex, 500, "internal error (reference " + reference + "); the server log has the details");
            }
        }
    }
}
