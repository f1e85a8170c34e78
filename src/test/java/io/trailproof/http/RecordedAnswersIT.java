package io.trailproof.http;

import io.trailproof.testing.AnswerRecorder;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Checks against the OpenAPI document every answer that other integration tests received, when a
 * run collected them: {@code -Dtrailproof.answers.file=FILE} makes every test's {@code Api} append its
 * answers to FILE; run this test afterwards with the same property (src/site/testing.md#checking-answers-against-the-openapi-document). Skipped
 * without it.
 */
class RecordedAnswersIT {

    @Test
    void everyRecordedAnswerConformsToTheDocument() throws Exception {
        String name = System.getProperty(AnswerRecorder.FILE_PROPERTY);
        assumeTrue(name != null && Files.exists(Path.of(name)), "no answers were collected (-D"
                + AnswerRecorder.FILE_PROPERTY + "=FILE on an earlier run)");
        OpenApiContract contract = OpenApiContract.load();
        List<AnswerRecorder.Answer> answers = AnswerRecorder.read(Path.of(name));
        List<String> problems = new ArrayList<>();
        Set<String> seen = new TreeSet<>();
        for (AnswerRecorder.Answer a : answers) {
            if (a.status() == 500) {
                continue; // a test that injects a fault may see the bug answer, which the document leaves out
            }
            contract.problems(a).forEach(p -> problems.add(a + ": " + p));
            OpenApiContract.Operation op = contract.operation(a.method(), a.path());
            if (op != null) {
                seen.add(op.key() + " " + a.status());
            }
        }
        System.out.println("RecordedAnswersIT: " + answers.size() + " answers, " + seen.size()
                + " documented (operation, status) pairs, " + problems.size() + " problems");
        assertThat(problems).as("recorded answers that disagree with the OpenAPI document").isEmpty();
    }
}
