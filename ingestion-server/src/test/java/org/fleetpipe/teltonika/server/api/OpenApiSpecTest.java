package org.fleetpipe.teltonika.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The spec and the route table list the same operations. (That every response the spec documents
 * is produced, and nothing else, is {@code OperatorApiSpecIT}'s part: it needs a server and Redis.)
 */
class OpenApiSpecTest {

    /** The table the server builds; the services are never called here. */
    static RouteTable table() {
        CommandResource commands = new CommandResource(null, null, null, null);
        return OperatorApi.of(new InstanceResource(null, null), new DeviceResource(null, commands, new CaptureResource(null, null),
                new DeviceModelResource(null)), commands,
                new OpsResource(null, null, null), new AdmissionResource(null, null), new SpecResource()).table();
    }

    @Test
    void spec_listsExactlyTheOperationsOfTheRouteTable() {
        Set<String> routed = new TreeSet<>();
        table().routes().forEach(route -> routed.add(route.operation()));

        assertThat(OpenApiDocument.served().operations()).isEqualTo(routed);
        assertThat(routed).hasSize(21).contains("GET /api/v1/openapi.yaml", "GET /api/v1/command-templates");
    }

    @Test
    void spec_isOpenApi31_andEveryOperationDocumentsItsTokenRefusals() {
        OpenApiDocument spec = OpenApiDocument.served();
        assertThat(spec.root().path("openapi").asText()).startsWith("3.1");
        Set<String> responses = spec.responses();
        for (String operation : spec.operations()) {
            assertThat(responses).as(operation).contains(operation + " 401 unauthorized");
            if (!operation.startsWith("GET ")) {
                assertThat(responses).as(operation).contains(operation + " 403 forbidden");
            }
        }
    }
}
