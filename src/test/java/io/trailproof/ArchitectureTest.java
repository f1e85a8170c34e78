package io.trailproof;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import io.trailproof.config.ApiKey;
import io.trailproof.store.EventLog;
import io.trailproof.store.MerkleNodeStore;
import io.trailproof.store.SegmentLog;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * Keeps the layers as src/site/architecture.md draws them: the core is pure (no I/O, no clock, no randomness of
 * its own) and every arrow points toward it.
 */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.trailproof");
    }

    @Test
    void coreDependsOnNothingOfOurs() {
        noClasses().that().resideInAPackage("io.trailproof.core..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.trailproof.store..", "io.trailproof.ledger..", "io.trailproof.http..",
                        "io.trailproof.server..", "io.trailproof.cli..", "io.trailproof.config..",
                        "io.trailproof.index..", "io.trailproof.timestamp..", "io.trailproof.export..")
                .check(classes);
    }

    @Test
    void coreDoesNoIo() {
        noClasses().that().resideInAPackage("io.trailproof.core..")
                .should().dependOnClassesThat().resideInAnyPackage("java.nio.file..", "java.nio.channels..", "java.net..",
                        "java.net.http..", "io.undertow..", "org.apache.lucene..")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.File")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.FileInputStream")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.FileOutputStream")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.RandomAccessFile")
                .because("the core is pure: storage and network live in outer layers")
                .check(classes);
    }

    @Test
    void coreReadsNoClockAndMakesNoRandomness() {
        ArchRule rule = noClasses().that().resideInAPackage("io.trailproof.core..")
                .should().callMethod(Instant.class, "now")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .orShould().callMethod(Clock.class, "systemUTC")
                .orShould().callMethod(Clock.class, "systemDefaultZone")
                .orShould().callMethod(LocalDateTime.class, "now")
                .orShould().callMethod(OffsetDateTime.class, "now")
                .orShould().callMethod(Math.class, "random")
                .orShould().callConstructor(SecureRandom.class)
                .orShould().callConstructor(Random.class)
                .orShould().callMethod(ThreadLocalRandom.class, "current")
                .orShould().callMethod(UUID.class, "randomUUID")
                .because("time and randomness are injected, so the core is deterministic and testable");
        rule.check(classes);
    }

    @Test
    void onlyTheMetricsPackageKnowsThePrometheusClient() {
        noClasses().that().resideOutsideOfPackage("io.trailproof.metrics..")
                .should().dependOnClassesThat().resideInAPackage("io.prometheus..")
                .because("the layers report through small observers and suppliers; ServiceMetrics alone records")
                .check(classes);
        noClasses().that().resideInAnyPackage("io.trailproof.metrics..", "io.trailproof.logging..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.core..", "io.trailproof.store..",
                        "io.trailproof.ledger..", "io.trailproof.index..", "io.trailproof.http..",
                        "io.trailproof.server..", "io.trailproof.cli..", "io.trailproof.config..",
                        "io.trailproof.timestamp..", "io.trailproof.checkpoint..", "io.trailproof.stream..",
                        "io.trailproof.export..", "io.trailproof.otlp..")
                .because("metrics and logging are leaves that the server, http and cli wire; they know no layer")
                .check(classes);
        noClasses().that().resideInAnyPackage("io.trailproof.core..", "io.trailproof.store..", "io.trailproof.ledger..",
                        "io.trailproof.index..", "io.trailproof.timestamp..", "io.trailproof.checkpoint..",
                        "io.trailproof.stream..", "io.trailproof.export..", "io.trailproof.otlp..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.metrics..", "io.trailproof.logging..")
                .because("lower layers expose observers; the composition root connects them to the metrics")
                .check(classes);
    }

    @Test
    void storeKnowsNothingAboveIt() {
        noClasses().that().resideInAPackage("io.trailproof.store..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.ledger..", "io.trailproof.http..",
                        "io.trailproof.server..", "io.trailproof.cli..", "io.trailproof.config..")
                .check(classes);
    }

    @Test
    void segmentLogWritesPassThroughItsFaultInjectionSeam() {
        noClasses().that().resideInAPackage("io.trailproof.store..")
                .and().haveNameNotMatching("io\\.trailproof\\.store\\.SegmentIo(\\$.*)?")
                .and().haveNameNotMatching("io\\.trailproof\\.store\\.(Merkle.*|UpperLevelCheck)(\\$.*)?")
                .should().dependOnClassesThat().areAssignableTo(RandomAccessFile.class)
                .because("every write, force and truncate of the segment log goes through store.SegmentIo, "
                        + "where tests inject full disks and failing fsyncs (the tree's files, derived and checked "
                        + "against level 0 at start, have their own non-interruptible writer)")
                .check(classes);
    }

    @Test
    void ledgerKnowsNothingAboveIt() {
        noClasses().that().resideInAPackage("io.trailproof.ledger..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.http..", "io.trailproof.server..",
                        "io.trailproof.cli..")
                .check(classes);
    }

    @Test
    void timestampingKnowsNothingAboveIt() {
        noClasses().that().resideInAPackage("io.trailproof.timestamp..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.http..", "io.trailproof.server..",
                        "io.trailproof.cli..", "io.trailproof.config..")
                .because("timestamping sits between the ledger and the HTTP API: http -> timestamp -> ledger")
                .check(classes);
        noClasses().that().resideInAnyPackage("io.trailproof.ledger..", "io.trailproof.store..")
                .should().dependOnClassesThat().resideInAPackage("io.trailproof.timestamp..")
                .check(classes);
    }

    @Test
    void theClusterSitsBetweenTheLedgerAndTheHttpApi() {
        noClasses().that().resideInAPackage("io.trailproof.cluster..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.http..", "io.trailproof.server..",
                        "io.trailproof.cli..", "io.undertow..", "io.trailproof.index..")
                .because("cluster mode: http -> cluster -> ledger; the HTTP answer format comes in "
                        + "through AnswerBuilders")
                .check(classes);
        noClasses().that().resideInAnyPackage("io.trailproof.core..", "io.trailproof.store..", "io.trailproof.ledger..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.cluster..", "org.apache.kafka..")
                .because("the ledger applies replicated records without knowing where they come from")
                .check(classes);
    }

    @Test
    void captureGapsSitBetweenTheLedgerAndTheServer() {
        noClasses().that().resideInAPackage("io.trailproof.capture..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.http..", "io.trailproof.server..",
                        "io.trailproof.cli..", "io.trailproof.config..", "io.trailproof.cluster..", "io.undertow..")
                .because("gap detection follows the ledger and writes through a seam the server wires: "
                        + "server -> capture -> ledger")
                .check(classes);
        noClasses().that().resideInAnyPackage("io.trailproof.core..", "io.trailproof.store..", "io.trailproof.ledger..")
                .should().dependOnClassesThat().resideInAPackage("io.trailproof.capture..")
                .check(classes);
    }

    @Test
    void otlpSitsBetweenTheLedgerAndTheHttpApi() {
        noClasses().that().resideInAPackage("io.trailproof.otlp..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.http..", "io.trailproof.server..",
                        "io.trailproof.cli..", "io.undertow..")
                .because("OTLP decoding, mapping and storing know no HTTP: http -> otlp -> ledger")
                .check(classes);
        noClasses().that().resideInAnyPackage("io.trailproof.core..", "io.trailproof.store..", "io.trailproof.ledger..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.otlp..", "io.opentelemetry..",
                        "com.google.protobuf..")
                .check(classes);
    }

    @Test
    void theMcpProxyIsAClientOfTheHttpApiOnly() {
        noClasses().that().resideInAnyPackage("io.trailproof.mcp..", "io.trailproof.shipping..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.http..", "io.trailproof.server..",
                        "io.trailproof.cli..", "io.trailproof.config..", "io.trailproof.ledger..", "io.trailproof.store..",
                        "io.trailproof.index..", "io.undertow..")
                .because("the MCP proxy runs where the agent runs and reaches the service over HTTP: "
                        + "cli -> mcp -> shipping -> core")
                .check(classes);
        noClasses().that().resideOutsideOfPackages("io.trailproof.mcp..", "io.trailproof.cli..")
                .should().dependOnClassesThat().resideInAPackage("io.trailproof.mcp..")
                .check(classes);
        noClasses().that().resideInAPackage("io.trailproof.shipping..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.mcp..", "io.trailproof.llmgateway..",
                        "io.trailproof.capture..")
                .because("shipping is what the capture paths beside the agent share (the shipper, the spool); "
                        + "it knows none of them, nor the service's own capture tracking")
                .check(classes);
    }

    @Test
    void theLlmGatewayIsAClientOfTheHttpApiOnly() {
        noClasses().that().resideInAPackage("io.trailproof.llmgateway..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.http..", "io.trailproof.server..",
                        "io.trailproof.cli..", "io.trailproof.config..", "io.trailproof.ledger..", "io.trailproof.store..",
                        "io.trailproof.index..", "io.trailproof.mcp..", "io.trailproof.capture..")
                .because("the gateway runs beside the agent and reaches the service over HTTP: "
                        + "cli -> llmgateway -> shipping -> core (Undertow is its own listener, not the service's http layer)")
                .check(classes);
        noClasses().that().resideOutsideOfPackages("io.trailproof.llmgateway..", "io.trailproof.cli..")
                .should().dependOnClassesThat().resideInAPackage("io.trailproof.llmgateway..")
                .check(classes);
    }

    @Test
    void ledgerKnowsNothingOfTheIndex() {
        noClasses().that().resideInAnyPackage("io.trailproof.ledger..", "io.trailproof.store..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.index..", "org.apache.lucene..")
                .because("the index is derived from the log; the log never depends on it")
                .check(classes);
    }

    @Test
    void ledgerAndStoreKnowNothingOfExport() {
        noClasses().that().resideInAnyPackage("io.trailproof.ledger..", "io.trailproof.store..")
                .should().dependOnClassesThat().resideInAPackage("io.trailproof.export..")
                .check(classes);
    }

    @Test
    void exportKnowsNothingAboveIt() {
        noClasses().that().resideInAPackage("io.trailproof.export..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.http..", "io.trailproof.server..",
                        "io.trailproof.cli..", "io.trailproof.config..")
                .check(classes);
    }

    @Test
    void checkpointsKnowNothingAboveThem() {
        noClasses().that().resideInAPackage("io.trailproof.checkpoint..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.http..", "io.trailproof.server..",
                        "io.trailproof.cli..", "io.trailproof.config..")
                .because("signed checkpoints sit beside timestamping: http -> checkpoint -> ledger")
                .check(classes);
        noClasses().that().resideInAnyPackage("io.trailproof.ledger..", "io.trailproof.store..")
                .should().dependOnClassesThat().resideInAPackage("io.trailproof.checkpoint..")
                .check(classes);
    }

    @Test
    void backupKnowsNothingAboveIt() {
        noClasses().that().resideInAPackage("io.trailproof.backup..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.http..", "io.trailproof.server..",
                        "io.trailproof.cli..", "io.trailproof.config..", "io.trailproof.index..", "io.undertow..")
                .because("backup and restore sit beside timestamping: {http, cli} -> backup -> {ledger, store}; "
                        + "a restore runs offline, without the service")
                .check(classes);
        noClasses().that().resideInAnyPackage("io.trailproof.core..", "io.trailproof.store..", "io.trailproof.ledger..",
                        "io.trailproof.timestamp..", "io.trailproof.checkpoint..")
                .should().dependOnClassesThat().resideInAPackage("io.trailproof.backup..")
                .check(classes);
    }

    @Test
    void indexKnowsNothingAboveIt() {
        noClasses().that().resideInAPackage("io.trailproof.index..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.http..", "io.trailproof.server..",
                        "io.trailproof.cli..", "io.trailproof.config..")
                .check(classes);
    }

    @Test
    void theStreamKnowsNothingAboveIt() {
        noClasses().that().resideInAPackage("io.trailproof.stream..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.http..", "io.trailproof.server..",
                        "io.trailproof.cli..", "io.trailproof.config..")
                .because("the live stream sits beside the search: http -> stream -> {index, ledger}; http only wires it")
                .check(classes);
        noClasses().that().resideInAnyPackage("io.trailproof.ledger..", "io.trailproof.store..", "io.trailproof.index..")
                .should().dependOnClassesThat().resideInAPackage("io.trailproof.stream..")
                .because("the ledger only signals that its size grew; it never waits for or knows of a stream")
                .check(classes);
    }

    @Test
    void onlyTheIndexUsesLucene() {
        noClasses().that().resideOutsideOfPackage("io.trailproof.index..")
                .should().dependOnClassesThat().resideInAPackage("org.apache.lucene..")
                .because("the index is reached through the EventIndex interface, so a backend can be replaced")
                .check(classes);
    }

    @Test
    void theIndexReadSideAndQueryTranslationWriteNothing() {
        noClasses().that().haveFullyQualifiedName("io.trailproof.index.IndexReads")
                .or().haveFullyQualifiedName("io.trailproof.index.RequestQuery")
                .should().dependOnClassesThat().haveFullyQualifiedName("io.trailproof.index.LuceneEventIndex")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.apache.lucene.index.IndexWriter")
                .orShould().dependOnClassesThat().resideInAPackage("org.apache.lucene.store..")
                .because("reads reach the live index only through EventIndex and SearchIndex's seam, and only "
                        + "IndexFollower swaps or reopens it; turning a request into a query touches no index")
                .check(classes);
    }

    @Test
    void exportReachesTimestampsOnlyThroughItsSource() {
        noClasses().that().resideInAPackage("io.trailproof.export..")
                .should().dependOnClassesThat().resideInAPackage("io.trailproof.timestamp..")
                .because("an export reads stored timestamps through export.TimestampSource, which the server wires")
                .check(classes);
    }

    @Test
    void httpKnowsNothingAboveIt() {
        noClasses().that().resideInAPackage("io.trailproof.http..")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.server..", "io.trailproof.cli..")
                .check(classes);
    }

    @Test
    void theApiDescriptionIsAStaticHttpResource() {
        // GET /v1/openapi.json serves a file checked against real answers by the tests; it is not built
        // from the layers below at run time, and the schema validator that checks it stays in the tests.
        noClasses().that().haveFullyQualifiedName("io.trailproof.http.OpenApiEndpoint")
                .should().dependOnClassesThat().resideInAnyPackage("io.trailproof.core..", "io.trailproof.store..",
                        "io.trailproof.ledger..", "io.trailproof.index..", "io.trailproof.checkpoint..",
                        "io.trailproof.timestamp..", "io.trailproof.export..", "io.trailproof.otlp..",
                        "io.trailproof.stream..", "io.trailproof.config..")
                .check(classes);
        noClasses().should().dependOnClassesThat().resideInAPackage("com.networknt..")
                .because("json-schema-validator is a test dependency: the server does not validate its own answers")
                .check(classes);
    }

    @Test
    void onlyTheAuthenticatorReadsApiKeySecrets() {
        noClasses().that().resideOutsideOfPackage("io.trailproof.config..")
                .and().doNotHaveFullyQualifiedName("io.trailproof.http.Authenticator")
                .should().callMethod(ApiKey.class, "secret")
                .because("a key's secret goes nowhere but the constant-time comparison: never a log or a message")
                .check(classes);
    }

    @Test
    void treeFilesAreNotWrittenThroughInterruptibleChannels() {
        noClasses().that().haveNameMatching("io\\.trailproof\\.store\\.(Merkle.*|UpperLevelCheck)")
                .should().callMethodWhere(target(nameMatching("write|truncate|transferFrom|map"))
                        .and(target(owner(assignableTo(FileChannel.class)))))
                .because("an interrupt of the appending thread closes a FileChannel and would break the tree for "
                        + "every thread: level files are written through RandomAccessFile")
                .check(classes);
    }

    @Test
    void onlyTheSequencerAndRecoveryGrowTheLogAndTheTree() {
        // (the timestamp store keeps its own log of records; the rule is about the ledger's)
        noClasses().that().resideOutsideOfPackages("io.trailproof.store..", "io.trailproof.timestamp..")
                .and().doNotHaveFullyQualifiedName("io.trailproof.ledger.Sequencer")
                .and().doNotHaveFullyQualifiedName("io.trailproof.ledger.Recovery")
                .should().callMethod(EventLog.class, "append", List.class)
                .orShould().callMethod(SegmentLog.class, "append", List.class)
                .orShould().callMethod(MerkleNodeStore.class, "append", byte[].class)
                .because("the readable size is published by the sequencer after the log, the "
                        + "tree and the agents are all updated; a write elsewhere would not be counted")
                .check(classes);
    }

    @Test
    void theBackgroundThreadIsALeaf() {
        noClasses().that().resideInAPackage("io.trailproof.background..")
                .should().dependOnClassesThat().resideOutsideOfPackages("io.trailproof.background..", "java..")
                .because("the lifecycle of a scheduled task's thread knows no layer, so every layer may use it")
                .check(classes);
    }
}
