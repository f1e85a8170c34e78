package io.trailproof.core.redaction;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code redaction.rules}: one {@code name = regex} a line; every bad line refused with its number. */
class RedactionRulesFileTest {

    @Test
    void rulesAreReadInOrderSkippingCommentsAndBlankLines() throws Exception {
        var rules = RedactionRulesFile.parse("""
                # our own identifiers
                ticket = TCK-[0-9]{4}

                  employee_id =  E[0-9]{6}
                query = a=b|c=d
                """, "rules.txt");
        assertThat(rules).extracting(RedactionRule::name).containsExactly("ticket", "employee_id", "query");
        assertThat(rules.get(1).apply("by E123456.").text()).isEqualTo("by [REDACTED:employee_id].");
        assertThat(rules.get(2).pattern().pattern()).as("only the first = separates").isEqualTo("a=b|c=d");
    }

    @Test
    void eachBadLineIsRefusedNamingTheLineAndWhatIsWrong() {
        Map<String, String> cases = Map.of(
                "ok = x\nno equals sign\n", "rules.txt line 2: expected 'name = regex'",
                "bad name! = x", "line 1: rule name 'bad name!' must be",
                "email = x@y", "line 1: rule name 'email' is already a built-in rule's",
                "a = x\na = y", "line 2: rule name 'a' is already used above",
                "a =", "line 1: rule 'a' has no regular expression",
                "# c\n\nbroken = (unclosed", "line 3: rule 'broken' is not a valid regular expression",
                "anything = x*", "line 1: rule 'anything' matches the empty string");
        cases.forEach((text, message) -> assertThatThrownBy(() -> RedactionRulesFile.parse(text, "rules.txt"))
                .as(text).isInstanceOf(RedactionRulesFile.BadRulesException.class).hasMessageContaining(message));
    }
}
