package io.trailproof.signin;

import com.nimbusds.openid.connect.sdk.claims.IDTokenClaimsSet;
import io.trailproof.config.ApiKey;
import io.trailproof.config.Settings;

import java.net.URI;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Sign-in of people through an OpenID Connect provider (src/site/sign-in.md#signing-in-people): starts a
 * sign-in, completes it into a {@link Sessions.Session}, finds a request's session, ends one. The HTTP
 * layer carries cookies and pages; this class holds what is decided.
 */
public final class SignIn {

    private static final System.Logger LOG = System.getLogger(SignIn.class.getName());

    /** Sessions held at once; one more ends the oldest. */
    public static final int MAX_SESSIONS = 10_000;
    /** Bytes of randomness in a state, a nonce and a PKCE code verifier. */
    private static final int RANDOM_BYTES = 32;

    private final OidcProvider provider;
    private final RoleMap roleMap;
    private final boolean strict;
    private final Sessions sessions;
    private final PendingSignIns pending;
    private final SecureRandom random;
    /** Where the provider sends the browser after its own sign-out: the console. */
    private final URI afterSignOut;

    SignIn(OidcProvider provider, RoleMap roleMap, boolean strict, Sessions sessions, PendingSignIns pending,
           SecureRandom random, URI afterSignOut) {
        this.provider = provider;
        this.roleMap = roleMap;
        this.strict = strict;
        this.sessions = sessions;
        this.pending = pending;
        this.random = random;
        this.afterSignOut = afterSignOut;
    }

    /**
     * Discovers the provider of {@code settings} and prepares sign-in.
     *
     * @throws ProviderUnusable when the provider cannot be used; the message says why
     */
    public static SignIn start(Settings.SignIn settings, Clock clock, SecureRandom random) throws ProviderUnusable {
        OidcProvider provider = OidcProvider.discover(settings.issuer(), settings.clientId(),
                settings.clientSecret().orElse(null), settings.redirectUri(), settings.scopes());
        URI console = settings.redirectUri().resolve("/ui/");
        return new SignIn(provider, new RoleMap(settings.rolesClaim(), settings.roleMap()), settings.strict(),
                new Sessions(settings.idleTimeout(), settings.maxAge(), MAX_SESSIONS, clock, random),
                new PendingSignIns(clock), random, console);
    }

    /** A started sign-in: the {@code state} to bind to the browser, and where to send it. */
    public record Started(String state, URI authorizationUri) {
    }

    /** Starts a sign-in that returns to {@code returnTo} (a path of this service, already checked). */
    public Started begin(String returnTo) {
        String state = randomToken();
        String nonce = randomToken();
        String verifier = randomToken();
        pending.put(state, nonce, verifier, returnTo);
        return new Started(state, provider.authorizationUri(state, nonce, verifier));
    }

    /** A completed sign-in: the new session and the console address to return to. */
    public record Completed(Sessions.Session session, String returnTo) {
    }

    /**
     * Completes a sign-in from the provider's redirect.
     *
     * @param state the {@code state} of the redirect
     * @param browserState the state this browser started with (from its cookie), or null
     * @param code the authorization code, or null when the provider sent an error
     * @param error the provider's {@code error}, or null
     * @throws SignInFailure when anything does not check out, or (strict) the person has no role
     */
    public Completed complete(String state, String browserState, String code, String error) throws SignInFailure {
        if (error != null) {
            pending.take(state);
            throw new SignInFailure(SignInFailure.Kind.FAILED, "the provider answered the sign-in with error "
                    + shorten(error));
        }
        if (state == null || code == null) {
            throw new SignInFailure(SignInFailure.Kind.FAILED, "the redirect lacks state or code");
        }
        if (!state.equals(browserState)) {
            throw new SignInFailure(SignInFailure.Kind.FAILED, "the redirect's state is not the one this browser "
                    + "started with (a sign-in started elsewhere, or the browser dropped the cookie)");
        }
        PendingSignIns.Pending started = pending.take(state).orElseThrow(() -> new SignInFailure(
                SignInFailure.Kind.FAILED, "the redirect's state is unknown, used before or older than "
                + PendingSignIns.LIFETIME.toMinutes() + " minutes"));
        OidcProvider.Validated token = provider.exchange(code, started.codeVerifier(), started.nonce());
        Person person = person(token.claims());
        if (person.roles().isEmpty()) {
            throw new SignInFailure(SignInFailure.Kind.NO_ROLE, person.recordedName()
                    + " signed in but the role map gives them no role (auth.oidc.strict is on)");
        }
        Sessions.Session session = sessions.open(person, token.idToken());
        LOG.log(System.Logger.Level.INFO, person.recordedName() + " signed in with roles " + person.roles());
        return new Completed(session, started.returnTo());
    }

    private Person person(IDTokenClaimsSet claims) {
        Map<String, Object> all = claims.toJSONObject();
        Set<ApiKey.Role> roles = roleMap.roles(all);
        if (roles.isEmpty() && !strict) {
            roles = EnumSet.of(ApiKey.Role.READ);
        }
        return new Person(claims.getSubject().getValue(), text(all.get("email")), text(all.get("name")), roles);
    }

    private static String text(Object claim) {
        return claim instanceof String s && !s.isBlank() ? s : null;
    }

    /** The live session of this cookie value, if any (no network call: a map lookup). */
    public Optional<Sessions.Session> session(String id) {
        return sessions.find(id);
    }

    /**
     * Ends the session of this cookie value (when there is one) and answers where to send the browser
     * to sign out at the provider too; empty when the provider has no end-session endpoint.
     */
    public Optional<URI> signOut(String id) {
        Optional<Sessions.Session> ended = sessions.end(id);
        ended.ifPresent(s -> LOG.log(System.Logger.Level.INFO, s.person().recordedName() + " signed out"));
        return provider.endSessionUri(ended.map(Sessions.Session::idToken).orElse(null), afterSignOut);
    }

    private String randomToken() {
        byte[] b = new byte[RANDOM_BYTES];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static String shorten(String s) {
        String clean = s.replaceAll("\\p{Cntrl}", "?");
        return clean.length() <= 100 ? clean : clean.substring(0, 100) + "...";
    }
}
