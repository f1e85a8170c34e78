package io.trailproof.core.evidence;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Keeps the offline verifier's seams: one reader, one checker per concern, one report
 * builder, each with one job. The package-wide rules (the core is pure) are in
 * {@code io.trailproof.ArchitectureTest}; these need the package's own non-public classes.
 */
class EvidenceArchitectureTest {

    private static final String PACKAGE = "io.trailproof.core.evidence";
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(PACKAGE);
    }

    /** The class itself or one of its nested classes. */
    private static DescribedPredicate<JavaClass> partOf(Class<?> type) {
        return DescribedPredicate.describe("are part of " + type.getSimpleName(),
                c -> c.getName().equals(type.getName()) || c.getName().startsWith(type.getName() + "$"));
    }

    /** A checker of one concern of a package (not the RFC 3161 token plug-in). */
    private static final DescribedPredicate<JavaClass> CHECKER = DescribedPredicate.describe("are checkers of the package",
            c -> c.getPackageName().equals(PACKAGE) && c.getSimpleName().endsWith("Checker")
                    && !c.getSimpleName().endsWith("TokenChecker"));

    @Test
    void onlyTheReaderParsesThePackage() {
        noClasses().that().resideInAPackage(PACKAGE).and(DescribedPredicate.not(partOf(PackageReader.class)))
                .should().dependOnClassesThat().resideInAPackage("com.fasterxml.jackson.core..")
                .because("the package's JSON is read in one place, as a stream; the rest sees read values")
                .check(classes);
    }

    @Test
    void theReaderKnowsNoCheckAndNoReport() {
        noClasses().that(partOf(PackageReader.class))
                .should().dependOnClassesThat(CHECKER)
                .orShould().dependOnClassesThat(partOf(ReportBuilder.class))
                .orShould().dependOnClassesThat(partOf(EvidenceReport.class))
                .orShould().dependOnClassesThat(partOf(EvidenceReportWriter.class))
                .because("the reader hands each section to a sink; what is checked is the sinks' business")
                .check(classes);
    }

    @Test
    void checkersDoNotBuildTheReportNorReadTheStream() {
        noClasses().that(CHECKER)
                .should().dependOnClassesThat(partOf(ReportBuilder.class))
                .orShould().dependOnClassesThat(partOf(EvidenceReportWriter.class))
                .orShould().dependOnClassesThat(partOf(EvidenceVerifier.class))
                .orShould().dependOnClassesThat(DescribedPredicate.describe("are the reader itself",
                        c -> c.getName().equals(PackageReader.class.getName())
                                || c.getName().equals(PackageReader.UnreadablePackage.class.getName())))
                .because("a checker judges one concern; the report is assembled from the results in one place")
                .check(classes);
    }

    @Test
    void checkersDoNotDependOnEachOther() {
        noClasses().that(CHECKER).should(new ArchCondition<>("depend on another checker") {
            @Override
            public void check(JavaClass checker, ConditionEvents events) {
                checker.getDirectDependenciesFromSelf().stream()
                        .filter(d -> CHECKER.test(d.getTargetClass()) && !d.getTargetClass().equals(checker))
                        .forEach(d -> events.add(SimpleConditionEvent.satisfied(d, d.getDescription())));
            }
        }).because("each concern is checked on its own, from the header and the events' facts").check(classes);
    }

    @Test
    void theReportBuilderJudgesNothing() {
        noClasses().that(partOf(ReportBuilder.class))
                .should().dependOnClassesThat(CHECKER)
                .orShould().dependOnClassesThat(partOf(PackageReader.class))
                .orShould().dependOnClassesThat().resideInAnyPackage("io.trailproof.core.merkle..",
                        "io.trailproof.core.chain..", "io.trailproof.core.json..")
                .because("the verdict follows from the checks' results alone")
                .check(classes);
    }

    /** The project's rule: a class past about 500 lines is split along its seams (here: kept well under). */
    @Test
    void everySourceFileOfTheVerifierStaysWellUnder500Lines() throws Exception {
        Path dir = Path.of("src/main/java/io/trailproof/core/evidence");
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.toString().endsWith(".java")).toList();
        }
        assertThat(files).isNotEmpty();
        for (Path f : files) {
            assertThat(Files.readAllLines(f)).as(f.toString()).hasSizeLessThan(400);
        }
    }
}
