package org.fleetpipe.teltonika.bridge;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The bridge's rooms, read from its compiled classes: stream in, delivery between, sinks out. */
class BridgeArchitectureTest {

    private static final String BRIDGE = "org.fleetpipe.teltonika.bridge";
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(BRIDGE, "org.fleetpipe.teltonika.payload");

    @Test
    void theBridgesPackages_doNotImportEachOther() {
        slices().matching(BRIDGE + ".(*)..").should().beFreeOfCycles().check(CLASSES);
    }

    @Test
    void sinks_knowRecordsAndOutcomes_notRedisNorTheStream() {
        noClasses().that().resideInAPackage(BRIDGE + ".sink..")
                .should().dependOnClassesThat().resideInAnyPackage("io.lettuce..", BRIDGE + ".stream..",
                        BRIDGE + ".delivery..", BRIDGE + ".devices..")
                .because("a sink takes JSON records and answers for each; a new sink needs nothing else")
                .check(CLASSES);
    }

    @Test
    void theStreamPackage_knowsNothingOfDeliveryOrSinks() {
        noClasses().that().resideInAPackage(BRIDGE + ".stream..")
                .should().dependOnClassesThat().resideInAnyPackage(BRIDGE + ".delivery..", BRIDGE + ".sink..")
                .check(CLASSES);
    }

    @Test
    void payload_isPure_jacksonCoreAndTheJdkOnly() {
        classes().that().resideInAPackage("org.fleetpipe.teltonika.payload..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("org.fleetpipe.teltonika.payload..",
                        "com.fasterxml.jackson.core..", "java..")
                .because("the bridge and the reference consumer print exactly this; no I/O, no Redis, no logging")
                .check(CLASSES);
    }
}
