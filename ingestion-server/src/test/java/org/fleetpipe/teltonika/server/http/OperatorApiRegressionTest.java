package org.fleetpipe.teltonika.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/** Findings of OperatorApiFuzzTest that need a fix in main code, as plain tests. */
class OperatorApiRegressionTest {

    private static final String POST = "POST /api/v1/devices/352093081452251/commands\n{\"command\":\"getinfo\"}";

    @Test
    @Disabled("BUG: 503 redis-unavailable puts Throwable.toString() in the JSON message, so the body names the"
            + " exception class (e.g. io.lettuce.core.RedisConnectionException: Unable to connect to"
            + " redis/10.0.0.7:6379): CommandRoutes.handle/submit and DeviceRoutes.handle use error.toString()")
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
    @Disabled("BUG: a request whose path has a malformed percent escape (fuzzer input hex 04 00 25 47 6A 61 26 61"
            + " 2E 7B: 'POST \\0%Gja&a.{ HTTP/1.1', or 'GET /api/v1/devices/35209308145225% HTTP/1.1') gets no answer:"
            + " HttpRouter.channelRead0 calls new QueryStringDecoder(uri).path(), which throws"
            + " IllegalArgumentException; exceptionCaught closes the connection. Expected 400 {error, message}")
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
