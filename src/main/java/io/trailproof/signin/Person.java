package io.trailproof.signin;

import io.trailproof.config.ApiKey;

import java.util.Set;

/**
 * A signed-in person as the provider's ID token names them, with the roles the role map gave them.
 *
 * @param subject the token's {@code sub}: the provider's stable identifier of the person
 * @param email the token's {@code email}, or null
 * @param name the token's {@code name}, or null
 */
public record Person(String subject, String email, String name, Set<ApiKey.Role> roles) {

    public Person {
        roles = Set.copyOf(roles);
    }

    /**
     * How records name the person (an approval's {@code approver}, an erasure's requester, an ACCESS
     * event's {@code who}): the email, else the name, followed by the subject in parentheses; the
     * subject alone when the token carried neither. The subject is what stays true when an email
     * address changes hands; the email is what a reader recognises.
     */
    public String recordedName() {
        String readable = email != null && !email.isBlank() ? email : name != null && !name.isBlank() ? name : null;
        return readable == null ? subject : readable + " (" + subject + ")";
    }
}
