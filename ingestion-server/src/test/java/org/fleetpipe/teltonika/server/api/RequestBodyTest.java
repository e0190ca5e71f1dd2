package org.fleetpipe.teltonika.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.fleetpipe.teltonika.server.api.CommandResource.CommandRequest;
import org.fleetpipe.teltonika.server.api.RequestBody.BadValue;
import org.fleetpipe.teltonika.server.api.RequestBody.Bound;
import org.fleetpipe.teltonika.server.api.RequestBody.Malformed;
import org.fleetpipe.teltonika.server.api.RequestBody.Result;
import org.fleetpipe.teltonika.server.api.RequestBody.UnknownField;
import org.fleetpipe.teltonika.server.json.Json;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class RequestBodyTest {

    private static <T> Result<T> read(String json, Class<T> type) {
        return RequestBody.read(Unpooled.copiedBuffer(json, StandardCharsets.UTF_8), type);
    }

    @Test
    void command_bindsSnakeCaseFields_andLeavesAbsentOnesNull() {
        assertThat(read("{\"command\":\"getinfo\",\"wait_ms\":1000,\"max_attempts\":1}", CommandRequest.class))
                .isEqualTo(new Bound<>(new CommandRequest("getinfo", null, null, null, 1000L, null, 1L)));
    }

    @Test
    void template_bindsItsArgsAsTheyWereSent() throws Exception {
        assertThat(read("{\"template\":\"readio\",\"args\":{\"id\":21}}", CommandRequest.class)).isEqualTo(
                new Bound<>(new CommandRequest(null, "readio", Json.MAPPER.readTree("{\"id\":21}"), null, null, null,
                        null)));
    }

    @Test
    void command_fieldsAreKnownInDeclaredOrder() {
        assertThat(RequestBody.fields(CommandRequest.class))
                .containsExactly("command", "template", "args", "codec", "wait_ms", "ttl_ms", "max_attempts");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"command\":\"getinfo\",\"wait_ms\":true}|wait_ms",
        "{\"command\":\"getinfo\",\"wait_ms\":\"1000\"}|wait_ms",
        "{\"command\":\"getinfo\",\"wait_ms\":null}|wait_ms",
        "{\"command\":\"getinfo\",\"wait_ms\":1.5}|wait_ms",
        "{\"command\":\"getinfo\",\"codec\":\"14\"}|codec",
        "{\"command\":\"getinfo\",\"codec\":12.0}|codec",
        "{\"command\":\"getinfo\",\"codec\":99999999999999999999999}|codec",
        "{\"command\":\"getinfo\",\"ttl_ms\":1e6}|ttl_ms",
        "{\"command\":\"getinfo\",\"max_attempts\":2.5}|max_attempts",
        "{\"command\":[\"getinfo\"]}|command",
        "{\"command\":5}|command",
        "{\"command\":true}|command",
        "{\"command\":null}|command",
        "{\"template\":5}|template",
        "{\"template\":\"getinfo\",\"args\":null}|args",
        // Declared order decides, not the order sent.
        "{\"ttl_ms\":\"x\",\"codec\":true}|codec",
    })
    void command_valueOfAnotherType_isABadValueOfItsField(String json, String field) {
        assertThat(read(json, CommandRequest.class)).isInstanceOfSatisfying(BadValue.class,
                bad -> assertThat(bad.field()).isEqualTo(field));
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"command\":\"getinfo\",\"codec\":12,\"codec\":14}", "{\"command\":\"getinfo\"} {}",
        "[]", "", "not json", "\"text\"", "{\"command\":", "null"})
    void command_notExactlyOneObject_isMalformed(String json) {
        assertThat(read(json, CommandRequest.class)).isInstanceOf(Malformed.class);
    }

    @Test
    void unknownField_comesBeforeABadValue_andNamesTheFieldsThereAre() {
        assertThat(read("{\"codec\":\"14\",\"wait\":1000}", CommandRequest.class)).isEqualTo(new UnknownField<>("wait",
                List.of("command", "template", "args", "codec", "wait_ms", "ttl_ms", "max_attempts")));
    }

    @Test
    void bulk_itemOfAnotherType_namesItsIndexAndValue_andAListOfAnotherShape_none() {
        Result<AdmissionResource.BulkChange> number = read("{\"add\":[352093081452251]}",
                AdmissionResource.BulkChange.class);
        assertThat(number).isInstanceOfSatisfying(BadValue.class, bad -> {
            assertThat(bad.field()).isEqualTo("add");
            assertThat(bad.index()).isZero();
            assertThat(bad.value().toString()).isEqualTo("352093081452251");
        });
        assertThat(read("{\"remove\":[\"352093081452251\", null]}", AdmissionResource.BulkChange.class))
                .isInstanceOfSatisfying(BadValue.class, bad -> {
                    assertThat(bad.field()).isEqualTo("remove");
                    assertThat(bad.index()).isEqualTo(1);
                    assertThat(bad.value().toString()).isEqualTo("null");
                });
        for (String shape : List.of("{\"add\":\"352093081452251\"}", "{\"add\":null}", "{\"add\":{}}")) {
            assertThat(read(shape, AdmissionResource.BulkChange.class)).as(shape)
                    .isInstanceOfSatisfying(BadValue.class, bad -> assertThat(bad.index()).isEqualTo(-1));
        }
    }
}
