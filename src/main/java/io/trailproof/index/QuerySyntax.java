package io.trailproof.index;

import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.Token;
import org.apache.lucene.queryparser.classic.TokenMgrError;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Columns are counted from 1 (the classic parser counts from 0).
 *
 * <p>Turns the classic parser's errors into one sentence that says where the query goes wrong
 * (src/site/http-api.md#endpoints: "a syntax error is 400 and says where"), without the parser's list of expected tokens.
 */
final class QuerySyntax {

    private static final Pattern LEXICAL = Pattern.compile("at line (\\d+), column (\\d+)\\.\\s+Encountered: (\\S+)");

    private QuerySyntax() {
    }

    static String explain(ParseException wrapper) {
        for (Throwable t = wrapper; t != null; t = t.getCause()) {
            if (t instanceof ParseException p && p.currentToken != null) {
                Token bad = p.currentToken.next;
                if (bad == null || bad.kind == 0) {
                    return "query syntax error: the query ends too early (after column "
                            + (p.currentToken.endColumn + 1) + "); close every quote, bracket and parenthesis and complete "
                            + "every AND, OR and NOT";
                }
                return "query syntax error at line " + bad.beginLine + ", column " + (bad.beginColumn + 1) + ": unexpected '"
                        + bad.image + "'; check quotes, brackets, parentheses and operators, and escape special "
                        + "characters with \\";
            }
            if (t instanceof TokenMgrError e) {
                Matcher m = LEXICAL.matcher(e.getMessage());
                if (m.find()) {
                    return "query syntax error at line " + m.group(1) + ", column " + m.group(2) + ": "
                            + ("<EOF>".equals(m.group(3)) ? "the query ends inside a quoted phrase or a range; close the "
                            + "quote or bracket" : "unexpected character " + m.group(3));
                }
                return "query syntax error: " + e.getMessage();
            }
        }
        String message = wrapper.getMessage();
        int colon = message == null ? -1 : message.indexOf("': ");
        if (message != null && message.startsWith("Cannot parse '") && colon > 0) {
            message = message.substring(colon + 3);
        }
        return "query error: " + message;
    }
}
