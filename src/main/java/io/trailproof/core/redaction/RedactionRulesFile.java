package io.trailproof.core.redaction;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The text of {@code redaction.rules} (src/site/redaction.md): one {@code name = regex} a line, blank lines
 * and lines starting with {@code #} ignored. Only the first {@code =} separates: a regex may hold
 * more. Reading the file is the caller's; this reads its text.
 */
public final class RedactionRulesFile {

    private RedactionRulesFile() {
    }

    /** A rules file that cannot be used; the message names the line and what is wrong with it. */
    public static final class BadRulesException extends Exception {
        public BadRulesException(String message) {
            super(message);
        }
    }

    /**
     * The rules of {@code text}, in file order.
     *
     * @param source what to call the file in messages (its path)
     * @throws BadRulesException for a line without {@code =}, a bad or reused name, or a bad regex
     */
    public static List<RedactionRule> parse(String text, String source) throws BadRulesException {
        List<RedactionRule> rules = new ArrayList<>();
        Set<String> names = new HashSet<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            String where = source + " line " + (i + 1);
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 0) {
                throw new BadRulesException(where + ": expected 'name = regex', found no '='");
            }
            String name = line.substring(0, eq).strip();
            String regex = line.substring(eq + 1).strip();
            if (!RedactionRule.NAME.matcher(name).matches()) {
                throw new BadRulesException(where + ": rule name '" + name + "' must be 1..64 characters of "
                        + "A-Z a-z 0-9 _ . -");
            }
            if (BuiltInRedactionRules.isBuiltIn(name) || !names.add(name)) {
                throw new BadRulesException(where + ": rule name '" + name + "' is already "
                        + (BuiltInRedactionRules.isBuiltIn(name) ? "a built-in rule's" : "used above") + "; give another");
            }
            if (regex.isEmpty()) {
                throw new BadRulesException(where + ": rule '" + name + "' has no regular expression after '='");
            }
            Pattern pattern;
            try {
                pattern = Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                throw new BadRulesException(where + ": rule '" + name + "' is not a valid regular expression: "
                        + e.getDescription() + " near index " + e.getIndex());
            }
            if (pattern.matcher("").matches()) {
                throw new BadRulesException(where + ": rule '" + name + "' matches the empty string, which would "
                        + "redact nothing and everything; make it need at least one character");
            }
            rules.add(new RedactionRule(name, pattern));
        }
        return rules;
    }
}
