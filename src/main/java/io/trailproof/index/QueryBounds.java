package io.trailproof.index;

import org.apache.lucene.queryparser.charstream.FastCharStream;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParserConstants;
import org.apache.lucene.queryparser.classic.QueryParserTokenManager;
import org.apache.lucene.queryparser.classic.Token;
import org.apache.lucene.queryparser.classic.TokenMgrError;
import org.apache.lucene.util.automaton.RegExp;

import java.io.StringReader;

/**
 * The bounds that keep one query from hurting the service (src/site/search.md#bounds), checked before
 * the work they bound starts: nesting before the parser recurses, a regular expression's size before
 * its automaton is built. Every refusal says which bound was hit and what to do.
 *
 * <p>Together with {@link EventQueryParser#DETERMINIZE_WORK_LIMIT} (the work of making an automaton
 * deterministic) they bound the time a query takes to build: the automaton of a regular expression
 * has at most {@link #MAX_REGEX_STATES} states before determinization, and determinization stops
 * at its work limit.
 */
final class QueryBounds {

    /** Deepest nesting of parentheses a query may have (the classic parser recurses once per level). */
    static final int MAX_NESTING = 64;
    /** Longest regular expression between its slashes (its parser recurses once per character). */
    static final int MAX_REGEX_CHARS = 1_000;
    /** Most states the automaton of a regular expression may have before it is made deterministic. */
    static final long MAX_REGEX_STATES = 2_000;

    private QueryBounds() {
    }

    /**
     * Refuses a query whose parentheses nest deeper than {@link #MAX_NESTING}, reading it with the
     * classic parser's own tokenizer (which does not recurse), so parentheses inside quotes, ranges
     * and regular expressions do not count and escaped ones are not parentheses. Text the tokenizer
     * cannot read is left to the parser, which says where it goes wrong.
     */
    static void checkNesting(String text) throws BadQueryException {
        QueryParserTokenManager tokens = new QueryParserTokenManager(new FastCharStream(new StringReader(text)));
        int depth = 0;
        try {
            for (Token t = tokens.getNextToken(); t.kind != QueryParserConstants.EOF; t = tokens.getNextToken()) {
                if (t.kind == QueryParserConstants.LPAREN && ++depth > MAX_NESTING) {
                    throw new BadQueryException("the query nests parentheses more than " + MAX_NESTING
                            + " levels deep (at line " + t.beginLine + ", column " + (t.beginColumn + 1)
                            + "); the limit is " + MAX_NESTING);
                }
                if (t.kind == QueryParserConstants.RPAREN && depth > 0) {
                    depth--;
                }
            }
        } catch (TokenMgrError e) {
            // a lexical error: the parser reports it, after at most the nesting counted so far
        }
    }

    /**
     * Refuses the regular expression {@code regex} (the text between the slashes) on {@code field}
     * when it is longer than {@link #MAX_REGEX_CHARS}, nests groups deeper than {@link #MAX_NESTING},
     * or would build an automaton of more than {@link #MAX_REGEX_STATES} states (a repetition such
     * as {@code .{0,32000}} builds one copy of its operand per repetition).
     */
    static void checkRegex(String field, String regex) throws ParseException {
        if (regex.length() > MAX_REGEX_CHARS) {
            throw new ParseException("the regular expression on " + field + " is " + regex.length()
                    + " characters long; the limit is " + MAX_REGEX_CHARS);
        }
        if (regexNesting(regex) > MAX_NESTING) {
            throw new ParseException("the regular expression on " + field + " nests groups more than " + MAX_NESTING
                    + " levels deep; the limit is " + MAX_NESTING);
        }
        RegExp parsed;
        try {
            parsed = new RegExp(regex, RegExp.ALL);
        } catch (IllegalArgumentException e) {
            return; // not a valid expression: the parser's own attempt says why
        }
        long states = states(parsed);
        if (states > MAX_REGEX_STATES) {
            throw new ParseException("the regular expression /" + shorten(regex) + "/ on " + field
                    + " is too large to run (its automaton would have " + (states == Long.MAX_VALUE ? "billions of"
                    : "about " + states) + " states; the limit is " + MAX_REGEX_STATES
                    + "); use smaller repetition counts such as {1,50}");
        }
    }

    /**
     * Deepest group nesting of a regular expression in Lucene's syntax: parentheses inside a
     * character class {@code [...]}, a quoted string {@code "..."} or an interval or name
     * {@code <...>} are literal, and so is an escaped one.
     */
    static int regexNesting(String regex) {
        int depth = 0;
        int max = 0;
        char closing = 0;
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\') {
                i++;
                continue;
            }
            if (closing != 0) {
                if (c == closing) {
                    closing = 0;
                }
                continue;
            }
            switch (c) {
                case '[' -> closing = ']';
                case '"' -> closing = '"';
                case '<' -> closing = '>';
                case '(' -> max = Math.max(max, ++depth);
                case ')' -> depth = Math.max(0, depth - 1);
                default -> {
                }
            }
        }
        return max;
    }

    /**
     * An upper estimate of the states of the automaton Lucene builds for {@code e} before making it
     * deterministic (saturating at {@link Long#MAX_VALUE}): operands of a union or concatenation
     * add, an intersection multiplies, a bounded repetition copies its operand once per repetition.
     */
    static long states(RegExp e) {
        return switch (e.kind) {
            case REGEXP_UNION, REGEXP_CONCATENATION -> add(states(e.exp1), states(e.exp2));
            case REGEXP_INTERSECTION -> multiply(states(e.exp1), states(e.exp2));
            case REGEXP_OPTIONAL, REGEXP_REPEAT, REGEXP_COMPLEMENT, REGEXP_DEPRECATED_COMPLEMENT -> add(states(e.exp1), 1);
            case REGEXP_REPEAT_MIN -> add(multiply(states(e.exp1), (long) e.min + 1), 1);
            case REGEXP_REPEAT_MINMAX -> add(multiply(states(e.exp1), Math.max(1, e.max)), 1);
            case REGEXP_STRING -> e.s.length() + 1L;
            case REGEXP_INTERVAL -> 20L * Math.max(e.digits, Math.max(Integer.toString(e.min).length(),
                    Integer.toString(e.max).length()));
            default -> 2; // one character, a class, any character, the empty or any string, a named automaton
        };
    }

    private static long add(long a, long b) {
        long r = a + b;
        return r < 0 ? Long.MAX_VALUE : r;
    }

    private static long multiply(long a, long b) {
        return a != 0 && b > Long.MAX_VALUE / a ? Long.MAX_VALUE : a * b;
    }

    private static String shorten(String v) {
        return v.length() > 60 ? v.substring(0, 60) + "..." : v;
    }
}
