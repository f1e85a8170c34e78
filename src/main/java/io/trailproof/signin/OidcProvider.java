package io.trailproof.signin;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.oauth2.sdk.AuthorizationCode;
import com.nimbusds.oauth2.sdk.AuthorizationCodeGrant;
import com.nimbusds.oauth2.sdk.GeneralException;
import com.nimbusds.oauth2.sdk.ResponseType;
import com.nimbusds.oauth2.sdk.Scope;
import com.nimbusds.oauth2.sdk.TokenErrorResponse;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.TokenResponse;
import com.nimbusds.oauth2.sdk.auth.ClientSecretBasic;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.id.ClientID;
import com.nimbusds.oauth2.sdk.id.Issuer;
import com.nimbusds.oauth2.sdk.id.State;
import com.nimbusds.oauth2.sdk.pkce.CodeChallengeMethod;
import com.nimbusds.oauth2.sdk.pkce.CodeVerifier;
import com.nimbusds.openid.connect.sdk.AuthenticationRequest;
import com.nimbusds.openid.connect.sdk.LogoutRequest;
import com.nimbusds.openid.connect.sdk.Nonce;
import com.nimbusds.openid.connect.sdk.OIDCTokenResponse;
import com.nimbusds.openid.connect.sdk.OIDCTokenResponseParser;
import com.nimbusds.openid.connect.sdk.claims.IDTokenClaimsSet;
import com.nimbusds.openid.connect.sdk.op.OIDCProviderMetadata;
import com.nimbusds.openid.connect.sdk.validators.IDTokenValidator;
import com.nimbusds.jwt.JWTParser;

import java.io.IOException;
import java.text.ParseException;
import java.net.URI;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The OpenID Connect provider as this service uses it (src/site/sign-in.md#signing-in-people), through
 * the {@code oauth2-oidc-sdk} library: discovery at start, the authorization request (code flow with
 * PKCE S256, {@code state} and {@code nonce}), the code exchange at the token endpoint, and the ID
 * token's validation: signature by one of the provider's published keys (asymmetric algorithms only),
 * {@code iss}, {@code aud}, {@code exp}, {@code iat} and {@code nonce}.
 *
 * <p>Network calls happen only at start (discovery, keys) and when a person completes a sign-in (code
 * exchange; the keys again when a token names a key not held, or its signature fails with the held
 * ones: the provider may have rotated its keys). Never per request.
 */
final class OidcProvider {

    private static final System.Logger LOG = System.getLogger(OidcProvider.class.getName());

    static final int CONNECT_TIMEOUT_MS = 5_000;
    static final int READ_TIMEOUT_MS = 10_000;
    /** The largest key set read: far above any provider's. */
    static final int MAX_KEY_SET_BYTES = 512 * 1024;
    /** ID token signature algorithms accepted: asymmetric ones only, so a client secret can never sign a token. */
    private static final Set<JWSAlgorithm> ASYMMETRIC = Set.copyOf(new LinkedHashSet<>(List.of(
            JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512, JWSAlgorithm.PS256, JWSAlgorithm.PS384,
            JWSAlgorithm.PS512, JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.ES512, JWSAlgorithm.EdDSA,
            JWSAlgorithm.Ed25519)));

    private final Issuer issuer;
    private final ClientID clientId;
    private final Secret clientSecret;
    private final URI redirectUri;
    private final Scope scope;
    private final OIDCProviderMetadata metadata;
    private final Set<JWSAlgorithm> algorithms;
    /** The provider's keys as last fetched; replaced whole on a refresh. */
    private volatile JWKSet keys;

    private OidcProvider(Issuer issuer, ClientID clientId, Secret clientSecret, URI redirectUri, Scope scope,
                         OIDCProviderMetadata metadata, Set<JWSAlgorithm> algorithms, JWKSet keys) {
        this.issuer = issuer;
        this.clientId = clientId;
        this.clientSecret = clientSecret;
        this.redirectUri = redirectUri;
        this.scope = scope;
        this.metadata = metadata;
        this.algorithms = algorithms;
        this.keys = keys;
    }

    /**
     * Reads the provider's discovery document ({@code <issuer>/.well-known/openid-configuration}) and
     * its keys.
     *
     * @throws ProviderUnusable when either cannot be read, the document names another issuer, or lacks
     *     what this service needs (authorization, token and keys endpoints, the code flow, an asymmetric
     *     signature algorithm)
     */
    static OidcProvider discover(URI issuerUri, String clientId, String clientSecret, URI redirectUri,
                                 List<String> scopes) throws ProviderUnusable {
        Issuer issuer = new Issuer(issuerUri);
        OIDCProviderMetadata metadata;
        try {
            metadata = OIDCProviderMetadata.resolve(issuer, CONNECT_TIMEOUT_MS, READ_TIMEOUT_MS);
        } catch (IOException e) {
            throw new ProviderUnusable("the provider's discovery document could not be read from "
                    + issuerUri + "/.well-known/openid-configuration: " + e.getMessage(), e);
        } catch (GeneralException e) {
            throw new ProviderUnusable("the provider's discovery document at " + issuerUri
                    + "/.well-known/openid-configuration is not usable: " + e.getMessage(), e);
        }
        if (metadata.getAuthorizationEndpointURI() == null || metadata.getTokenEndpointURI() == null
                || metadata.getJWKSetURI() == null) {
            throw new ProviderUnusable("the provider's discovery document lacks an authorization, token or "
                    + "jwks_uri endpoint", null);
        }
        if (metadata.getResponseTypes() != null && !metadata.getResponseTypes().contains(ResponseType.CODE)) {
            throw new ProviderUnusable("the provider does not offer the authorization code flow (response type code)", null);
        }
        Set<JWSAlgorithm> algorithms = new LinkedHashSet<>();
        List<JWSAlgorithm> offered = metadata.getIDTokenJWSAlgs();
        if (offered == null || offered.isEmpty()) {
            algorithms.add(JWSAlgorithm.RS256);
        } else {
            offered.stream().filter(ASYMMETRIC::contains).forEach(algorithms::add);
        }
        if (algorithms.isEmpty()) {
            throw new ProviderUnusable("the provider signs ID tokens only with " + offered
                    + "; this service accepts asymmetric signatures (RS256, ES256, ...)", null);
        }
        JWKSet keys;
        try {
            keys = load(metadata.getJWKSetURI());
        } catch (IOException | ParseException e) {
            throw new ProviderUnusable("the provider's keys could not be read from " + metadata.getJWKSetURI()
                    + ": " + e.getMessage(), e);
        }
        return new OidcProvider(issuer, new ClientID(clientId), clientSecret == null ? null : new Secret(clientSecret),
                redirectUri, new Scope(scopes.toArray(String[]::new)), metadata, Set.copyOf(algorithms), keys);
    }

    private static JWKSet load(URI uri) throws IOException, ParseException {
        return JWKSet.load(uri.toURL(), CONNECT_TIMEOUT_MS, READ_TIMEOUT_MS, MAX_KEY_SET_BYTES);
    }

    /** Where to send the person's browser to sign in. */
    URI authorizationUri(String state, String nonce, String codeVerifier) {
        return new AuthenticationRequest.Builder(new ResponseType(ResponseType.Value.CODE), scope, clientId, redirectUri)
                .endpointURI(metadata.getAuthorizationEndpointURI())
                .state(new State(state))
                .nonce(new Nonce(nonce))
                .codeChallenge(new CodeVerifier(codeVerifier), CodeChallengeMethod.S256)
                .build()
                .toURI();
    }

    /**
     * Exchanges the code for the provider's tokens and validates the ID token against {@code nonce}.
     *
     * @return the validated ID token (serialized, for the end-session hint) and its claims
     * @throws SignInFailure when the exchange fails or the token is refused; the message says why for the log
     */
    Validated exchange(String code, String codeVerifier, String nonce) throws SignInFailure {
        AuthorizationCodeGrant grant = new AuthorizationCodeGrant(new AuthorizationCode(code), redirectUri,
                new CodeVerifier(codeVerifier));
        TokenRequest request = clientSecret == null
                ? new TokenRequest.Builder(metadata.getTokenEndpointURI(), clientId, grant).build()
                : new TokenRequest.Builder(metadata.getTokenEndpointURI(), new ClientSecretBasic(clientId, clientSecret),
                        grant).build();
        HTTPRequest http = request.toHTTPRequest();
        http.setConnectTimeout(CONNECT_TIMEOUT_MS);
        http.setReadTimeout(READ_TIMEOUT_MS);
        TokenResponse response;
        try {
            response = OIDCTokenResponseParser.parse(http.send());
        } catch (IOException e) {
            throw new SignInFailure("the provider's token endpoint could not be reached: " + e.getMessage(), e);
        } catch (GeneralException e) {
            throw new SignInFailure("the provider's token endpoint answered something that is not a token response: "
                    + e.getMessage(), e);
        }
        if (!response.indicatesSuccess()) {
            TokenErrorResponse error = response.toErrorResponse();
            throw new SignInFailure(SignInFailure.Kind.FAILED, "the provider refused the code: "
                    + (error.getErrorObject() == null ? "no error given" : error.getErrorObject().getCode() + " "
                    + error.getErrorObject().getDescription()));
        }
        if (!(response.toSuccessResponse() instanceof OIDCTokenResponse tokens)
                || tokens.getOIDCTokens().getIDToken() == null) {
            throw new SignInFailure(SignInFailure.Kind.FAILED, "the provider's token response holds no ID token");
        }
        JWT idToken = tokens.getOIDCTokens().getIDToken();
        return new Validated(idToken.serialize(), validate(idToken, nonce));
    }

    /** A validated ID token: the serialized token and its claims. */
    record Validated(String idToken, IDTokenClaimsSet claims) {
    }

    /**
     * Validates an ID token; when its key is unknown or its signature fails with the held keys, fetches
     * the provider's keys once more and tries again (key rotation).
     */
    IDTokenClaimsSet validate(JWT idToken, String nonce) throws SignInFailure {
        try {
            return validator(keys).validate(idToken, new Nonce(nonce));
        } catch (BadJWTException e) {
            throw new SignInFailure(SignInFailure.Kind.FAILED, "the ID token was refused: " + e.getMessage());
        } catch (BadJOSEException | JOSEException first) {
            // A key not held, or a signature the held keys do not verify: the provider may have rotated.
            try {
                keys = load(metadata.getJWKSetURI());
            } catch (IOException | ParseException e) {
                throw new SignInFailure("the ID token was refused (" + first.getMessage()
                        + ") and the provider's keys could not be read again: " + e.getMessage(), e);
            }
            try {
                return validator(keys).validate(idToken, new Nonce(nonce));
            } catch (BadJOSEException | JOSEException e) {
                throw new SignInFailure(SignInFailure.Kind.FAILED, "the ID token was refused: " + e.getMessage());
            }
        }
    }

    private IDTokenValidator validator(JWKSet keySet) {
        return new IDTokenValidator(issuer, clientId,
                new JWSVerificationKeySelector<SecurityContext>(algorithms,
                        (selector, context) -> selector.select(keySet)), null);
    }

    /**
     * The provider's end-session address for this ID token, returning to {@code afterwards}; empty when
     * its discovery document names no {@code end_session_endpoint}.
     */
    Optional<URI> endSessionUri(String idToken, URI afterwards) {
        URI endpoint = metadata.getEndSessionEndpointURI();
        if (endpoint == null) {
            return Optional.empty();
        }
        JWT hint = null;
        try {
            hint = idToken == null ? null : JWTParser.parse(idToken);
        } catch (ParseException e) {
            LOG.log(System.Logger.Level.DEBUG, "the kept ID token does not parse; signing out without a hint");
        }
        return Optional.of(new LogoutRequest(endpoint, hint, null, clientId, afterwards, null, null).toURI());
    }
}
