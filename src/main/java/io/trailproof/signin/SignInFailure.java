package io.trailproof.signin;

/**
 * A sign-in that did not complete. {@link #getMessage} is for the server log (it may name the
 * provider's error or which check of the ID token failed, never the token); the person sees only
 * {@link #kind}'s page.
 */
public final class SignInFailure extends Exception {

    /** What the person is told. */
    public enum Kind {
        /** The sign-in could not be completed or its token was refused: try again. */
        FAILED,
        /** The person signed in but the role map gives them no role (strict mode). */
        NO_ROLE
    }

    private final Kind kind;

    SignInFailure(Kind kind, String logDetail) {
        super(logDetail);
        this.kind = kind;
    }

    SignInFailure(String logDetail, Throwable cause) {
        super(logDetail, cause);
        this.kind = Kind.FAILED;
    }

    public Kind kind() {
        return kind;
    }
}
