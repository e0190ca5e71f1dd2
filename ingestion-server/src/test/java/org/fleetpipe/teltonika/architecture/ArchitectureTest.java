package org.fleetpipe.teltonika.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The architecture's rules, read from the compiled production classes of every module on this
 * classpath: a broken rule fails the build with the classes and the dependency that break it.
 */
class ArchitectureTest {

    private static final String SERVER = "org.fleetpipe.teltonika.server";
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            // The modules' test jars (codec's testing helpers, say), which the predefined option misses.
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importPackages("org.fleetpipe.teltonika");

    @Test
    void onlyTheConfigPackage_readsTypesafeConfig() {
        noClasses().that().resideOutsideOfPackage(SERVER + ".config..")
                .should().dependOnClassesThat().resideInAPackage("com.typesafe.config..")
                .because("settings are read once into typed records; nothing else looks a setting up")
                .check(CLASSES);
    }

    @Test
    void theTransportAndApiPackages_neverTalkToRedisDirectly() {
        noClasses().that().resideInAnyPackage(SERVER + ".api..", SERVER + ".http..", SERVER + ".tcp..",
                        SERVER + ".udp..")
                .should().dependOnClassesThat().resideInAPackage("io.lettuce..")
                .because("they call services; Redis is the domain packages' business")
                .check(CLASSES);
    }

    @Test
    void metrics_isALeaf() {
        noClasses().that().resideInAPackage(SERVER + ".metrics..")
                .should().dependOnClassesThat(resideInAPackage("org.fleetpipe.teltonika..")
                        .and(not(resideInAnyPackage(SERVER + ".metrics..", "org.fleetpipe.teltonika.codec.."))))
                .because("every package may count into metrics, so metrics knows none of them (the wire's"
                        + " vocabulary, codec ids and reasons, excepted)")
                .check(CLASSES);
    }

    @Test
    void theServersPackages_doNotImportEachOther() {
        slices().matching(SERVER + ".(*)..").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void theDeviceTransports_seeTheWriterOnlyThroughItsInterface() {
        noClasses().that().resideInAnyPackage(SERVER + ".tcp..", SERVER + ".udp..")
                .should().dependOnClassesThat().resideInAPackage(SERVER + ".stream..")
                .because("what a write can come to (stored, held, stream full) is the ingest package's"
                        + " TelemetryWriter contract, not the back-pressure decorator's inner types")
                .check(CLASSES);
    }

    @Test
    void productionCode_importsNothingFromAPackageMadeForTests() {
        noClasses().that().resideOutsideOfPackage("org.fleetpipe.teltonika.testkit..")
                .should().dependOnClassesThat().resideInAPackage("..testkit..")
                .because("test-kit is the tests' JUnit fixture; the development Redis comes from redis-launcher")
                .check(CLASSES);
    }

    @Test
    void nothing_looksUpItsEventLoopInNettysInternals() {
        noClasses().should().dependOnClassesThat().resideInAPackage("io.netty.util.internal..")
                .because("the event loop a call belongs to is passed in (a channel's eventLoop())")
                .check(CLASSES);
    }

    @Test
    void onlyTheDevPackage_touchesTheRedisLauncher() {
        noClasses().that().resideInAPackage(SERVER + "..").and().resideOutsideOfPackage(SERVER + ".dev..")
                .should().dependOnClassesThat().resideInAPackage("org.fleetpipe.teltonika.redislauncher..")
                .because("the launcher is optional: the slim jar leaves it out, so only dev.LocalDevelopmentRedis,"
                        + " loaded when DevelopmentRedis.available(), may reference it")
                .check(CLASSES);
    }

    @Test
    void theCodec_usesNothingButNettysBuffers() {
        classes().that().resideInAPackage("org.fleetpipe.teltonika.codec..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("org.fleetpipe.teltonika.codec..", "java..",
                        "io.netty.buffer..", "io.netty.util")
                .because("the codec is pure: ByteBuf in, immutable records out (io.netty.util is the buffers'"
                        + " ReferenceCounted)")
                .check(CLASSES);
    }

    @Test
    void theRegistry_knowsNothingOfTheJanitor_andTheJanitorNothingOfTheServer() {
        noClasses().that().resideInAPackage("org.fleetpipe.teltonika.registry..")
                .should().dependOnClassesThat().resideInAPackage("org.fleetpipe.teltonika.janitor..")
                .because("the janitor is a module of its own on top of the registry (the design card's top level)")
                .check(CLASSES);
        noClasses().that().resideInAPackage("org.fleetpipe.teltonika.janitor..")
                .should().dependOnClassesThat().resideInAPackage(SERVER + "..")
                .because("the server wires the janitor as one of its parts; the janitor takes settings, not the server")
                .check(CLASSES);
    }
}
