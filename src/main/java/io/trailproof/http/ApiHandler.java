package io.trailproof.http;

import io.trailproof.config.ApiKey;
import io.trailproof.ledger.DedupeLoadingException;
import io.trailproof.ledger.LedgerUnavailableException;
import io.trailproof.signin.Sessions;
import io.trailproof.signin.SignIn;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.SameThreadExecutor;
import io.undertow.util.Headers;
import io.undertow.util.Methods;

import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The root handler. On the I/O thread it routes the request, checks its key and role, and receives
 * the body; only then does a worker thread run the endpoint (or, for a non-blocking endpoint and
 * a small body, the I/O thread starts it and answers when its stage completes). Every outcome takes the src/site/http-api.md#conventions
 * shape; a stack trace goes to the server log under a reference, never to the client.
 *
 * <p>Order of refusals: an open route (/health, /auth/*) needs only a content type it takes (415). Anything else, including an
 * unknown path or a wrong method, first needs a valid key when keys are configured, or a live sign-in
 * session when people sign in (401), so that a caller without one learns nothing about what exists;
 * then 404 / 405; then, for a request made with the session cookie that changes anything, its CSRF
 * token (403); then the role (403); then the content type (415); then the body limits (413). A
 * request with an {@code Authorization} header is judged by its key alone, whatever cookie it carries.
 */
final class ApiHandler implements HttpHandler {

    private static final System.Logger LOG = System.getLogger(ApiHandler.class.getName());

    /** Bodies up to this size may be served on the I/O thread by a non-blocking endpoint; parsing them takes microseconds. */
    static final int NON_BLOCKING_BODY_BYTES = 64 * 1024;

    private final Router router;
    private final Authenticator authenticator;
    private final RequestBodies bodies;
    /** min_tree_size on reads. */
    private final MinTreeSize minTreeSize;
    /** Sign-in of people; null when it is off. */
    private final SignIn signIn;

    ApiHandler(Router router, Authenticator authenticator, RequestBodies bodies, MinTreeSize minTreeSize, SignIn signIn) {
        this.signIn = signIn;
        this.router = router;
        this.authenticator = authenticator;
        this.bodies = bodies;
        this.minTreeSize = minTreeSize;
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        Router.Match match;
        long minSize;
        try {
            match = admit(ex);
            minSize = ex.getRequestMethod().equalToString("GET") ? minTreeSize.asked(ex) : -1;
        } catch (ApiException e) {
            Responses.problem(ex, e);
            return;
        }
        CompletableFuture<Boolean> reached = minSize < 0 ? null : minTreeSize.await(minSize);
        if (reached != null && !reached.isDone()) {
            // A read that must wait for this node to apply more (cluster mode): parked, no thread
            // waits; resumed on the connection's I/O thread once the size came or cluster.read-wait passed.
            ex.dispatch(SameThreadExecutor.INSTANCE, () -> reached.whenComplete((ok, error) -> onIoThread(ex, () -> {
                if (Boolean.TRUE.equals(ok)) {
                    receiveAndRun(ex, match);
                } else {
                    answer(ex, minTreeSize.notReached(minSize));
                }
            })));
            return;
        }
        receiveAndRun(ex, match);
    }

    /** Receives the body, then runs the endpoint on the I/O thread (non-blocking, small body) or a worker. */
    private void receiveAndRun(HttpServerExchange ex, Router.Match match) {
        bodies.receive(ex, () -> {
            Router.NonBlockingEndpoint nonBlocking = match.route().nonBlocking();
            if (nonBlocking != null && bodies.received(ex) <= NON_BLOCKING_BODY_BYTES) {
                ex.dispatch(SameThreadExecutor.INSTANCE, () -> runNonBlocking(ex, nonBlocking));
            } else {
                ex.dispatch(exchange -> run(exchange, match));
            }
        }, refusal -> {
            try {
                Responses.problem(ex, refusal);
            } catch (IOException e) {
                ex.endExchange();
            }
        });
    }

    /** The route this request may use, or the refusal (401, 404, 405, 403). */
    private Router.Match admit(HttpServerExchange ex) throws ApiException {
        Router.Match match = null;
        ApiException unrouted = null;
        try {
            match = router.match(ex);
        } catch (ApiException e) {
            unrouted = e;
        }
        if (match != null) {
            ex.putAttachment(RequestTelemetry.ENDPOINT, match.route().template());
        }
        if (match != null && match.route().role() == null) {
            refuseContentType(ex, match);
            return match;
        }
        String authorization = ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
        Sessions.Session session = authorization == null ? session(ex) : null;
        Set<ApiKey.Role> granted = session != null ? session.person().roles() : authenticator.authenticate(authorization);
        if (unrouted != null) {
            throw unrouted;
        }
        String name = session != null ? session.person().recordedName() : authenticator.keyName(authorization);
        ex.putAttachment(Caller.KEY, new Caller(name != null ? name : Caller.ANONYMOUS));
        ex.putAttachment(AccessRecording.ROLE, match.route().role());
        if (session != null && !ex.getRequestMethod().equals(Methods.GET) && !ex.getRequestMethod().equals(Methods.HEAD)) {
            AuthEndpoints.checkCsrf(ex, session);
        }
        Authenticator.authorize(granted, match.route().role(), ex.getRequestMethod().toString(), ex.getRequestPath(),
                session != null);
        refuseContentType(ex, match);
        return match;
    }

    /**
     * A 415 for a content type the route does not take: open routes too, since a cross-site form may
     * post to them ({@code POST /auth/logout}) and must change nothing.
     */
    private static void refuseContentType(HttpServerExchange ex, Router.Match match) throws ApiException {
        ApiException wrongType = match.route().refusedContentType(
                ex.getRequestHeaders().getFirst(Headers.CONTENT_TYPE), !RequestBodies.bodiless(ex));
        if (wrongType != null) {
            throw wrongType;
        }
    }

    /**
     * The signed-in person's session of a request sent without a key: null when sign-in is off or the
     * request carries no session cookie.
     *
     * @throws ApiException 401 when the cookie names no live session (signed out, past a time-out, or
     *     the service restarted): the console then sends the person to sign in again
     */
    private Sessions.Session session(HttpServerExchange ex) throws ApiException {
        if (signIn == null) {
            return null;
        }
        String id = SessionCookies.read(ex, SessionCookies.SESSION);
        if (id == null) {
            return null;
        }
        return signIn.session(id).orElseThrow(() -> new ApiException(401, "the sign-in session has ended (signed out, "
                + "idle for too long, too old, or the service restarted): sign in again at " + AuthEndpoints.LOGIN));
    }

    /**
     * On a worker thread: runs the endpoint with blocking I/O and turns its outcome into an answer
     * (Undertow ends the exchange when this returns).
     */
    private void run(HttpServerExchange ex, Router.Match match) {
        try {
            ex.startBlocking();
            match.route().endpoint().handle(ex, match.parameter());
        } catch (Exception | Error e) {
            fail(ex, e);
        }
    }

    /**
     * On the I/O thread: starts a non-blocking endpoint and answers when its stage completes,
     * back on the connection's I/O thread (the exchange stays open until then).
     */
    private void runNonBlocking(HttpServerExchange ex, Router.NonBlockingEndpoint endpoint) {
        CompletionStage<Router.Answer> stage;
        try {
            stage = endpoint.start(ex);
        } catch (Exception | Error e) {
            fail(ex, e);
            return;
        }
        stage.whenComplete((answer, error) -> onIoThread(ex, () -> {
            if (error != null) {
                fail(ex, error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error);
                return;
            }
            try {
                answer.write(ex);
            } catch (Exception | Error e) {
                fail(ex, e);
            }
        }));
    }

    private static void onIoThread(HttpServerExchange ex, Runnable r) {
        if (Thread.currentThread() == ex.getIoThread()) {
            r.run();
        } else {
            ex.getIoThread().execute(r);
        }
    }

    /** Turns an endpoint's failure into its answer (src/site/http-api.md#conventions). */
    private static void fail(HttpServerExchange ex, Throwable failure) {
        if (failure instanceof ApiException e) {
            answer(ex, e);
        } else if (failure instanceof DedupeLoadingException e) {
            answer(ex, new ApiException(503, e.getMessage(), Map.of("Retry-After", "1")));
        } else if (failure instanceof LedgerUnavailableException e) {
            answer(ex, new ApiException(503, "the service cannot write now: " + e.getMessage(),
                    Map.of("Retry-After", "30")));
        } else {
            String reference = UUID.randomUUID().toString();
            RequestTelemetry.logError(ex, "internal error " + reference + " on " + ex.getRequestMethod() + " "
                    + ex.getRequestPath(), failure);
            answer(ex, new ApiException(500, "internal error (reference " + reference
                    + "); the server log has the details"));
        }
    }

    private static void answer(HttpServerExchange ex, ApiException e) {
        if (ex.isResponseStarted()) {
            return;
        }
        try {
            Responses.problem(ex, e);
        } catch (IOException | RuntimeException io) {
            LOG.log(System.Logger.Level.DEBUG, "could not answer " + e.status() + ": " + io);
        }
    }
}
