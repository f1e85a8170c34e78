package io.trailproof.core.merkle;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The core is pure (no I/O, clock or randomness) so the offline verifier can reuse it unchanged. */
class CorePurityTest {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.trailproof.core");

    @Test
    void coreDoesNoIoAndReadsNoClockOrRandomness() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage(
                        "java.io..", "java.nio.file..", "java.nio.channels..", "java.net..", "java.time..")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.Random")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.security.SecureRandom")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .check(CORE);
    }
}
