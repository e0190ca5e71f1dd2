package org.fleetpipe.teltonika.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Findings of OperatorApiFuzzTest (both fixed), kept as plain tests. */
class OperatorApiRegressionTest {

    private static final String POST = "POST /api/v1/devices/352093081452251/commands\n{\"command\":\"getinfo\"}";

    @Test
    void storeFailure_whenAnswered503_thenNoJavaClassNameInBody() {
        OperatorApiFuzzTest harness = new OperatorApiFuzzTest();
        // flags 0x02: the store (and the Redis stand-in) fail.
        for (String input : new String[] {POST, "GET /api/v1/commands/x\n", "GET /api/v1/devices/352093081452251\n"}) {
            byte[] data = ("\u0002" + input).getBytes(StandardCharsets.ISO_8859_1);
            harness.operatorRequest(data);
            String answer = new String(harness.lastAnswers, StandardCharsets.UTF_8);
            assertThat(answer).contains("503").contains("redis-unavailable")
                    .doesNotContain("Exception").doesNotContain("io.lettuce").doesNotContain("java.");
        }
    }

    @Test
    void path_whenPercentEscapeMalformed_then400WithErrorShape() {
        OperatorApiFuzzTest harness = new OperatorApiFuzzTest();
        for (String input : new String[] {"\u0004\u0000%Gja&a.{", "\u0000GET /api/v1/devices/35209308145225%\n",
                "\u0000GET /health/%zz\n", "\u0000GET /api/v1/commands/a%2\n"}) {
            harness.operatorRequest(input.getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(harness.lastAnswers, StandardCharsets.UTF_8);
            assertThat(answer).as("answer to %s", input).startsWith("HTTP/1.1 400").contains("\"error\"")
                    .contains("\"message\"");
        }
    }
}
