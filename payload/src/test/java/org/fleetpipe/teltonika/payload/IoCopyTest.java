package org.fleetpipe.teltonika.payload;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The io copied without a parser gives byte for byte what the parser's copy gives, or is left to the parser. */
class IoCopyTest {

    private static final JsonFactory JSON = new JsonFactoryBuilder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(2).build()).build();
    private static final Map<Integer, IoElement> FMB920 = IoDictionary.load().elementsOf("FMB920");

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"21\":3,\"66\":24079}", "{\"1\":0,\"2\":-5,\"78\":18446744073709551615}",
        "{\"385\":\"0a1b\",\"256\":\"\",\"66\":12000}", "{\"021\":7}", "{\"999999999\":1}",
        "{\"21\":1,\"21\":2}", "{\"16\":123456789012345678901234567890}", "{\"9\":\"a b/c~!\"}"})
    void whatTheServersWrite_isCopiedAsItIs_andNamedAsTheParserNamesIt(String io) throws IOException {
        for (Map<Integer, IoElement> elements : new Map[] {null, FMB920}) {
            IoCopy plain = new IoCopy(JSON);
            String copied = write(io, elements, plain, true);

            assertThat(copied).isEqualTo(write(io, elements, new IoCopy(JSON), false));
            assertThat(copied).startsWith("{\"io\":" + io);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"{ \"21\":3}", "{\"21\": 3}", "{\"21\":3.5}", "{\"21\":1e3}", "{\"21\":-0}",
        "{\"21\":007}", "{\"21\":\"a\\\"b\"}", "{\"21\":\"é\"}", "{\"21\":[1]}", "{\"21\":true}", "{\"21\":null}",
        "{\"x\":1}", "{\"1234567890\":1}", "{\"21\":1,}", "{\"21\":1}x", "[1]", "", "{\"21\":1", "{\"21\":\"tab\t\"}"})
    void anythingElse_isLeftToTheParser_withNothingWritten(String io) throws IOException {
        IoCopy copy = new IoCopy(JSON);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeFieldName("io");
            byte[] bytes = io.getBytes(StandardCharsets.UTF_8);

            assertThat(copy.copyPlain(json, bytes, 0, bytes.length, FMB920)).isFalse();
            json.flush();
            assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("{\"io\"");
        }
    }

    private static String write(String io, Map<Integer, IoElement> elements, IoCopy copy, boolean plain)
            throws IOException {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("io", io);
        EntryBody entry = EntryBody.of(fields);
        int start = entry.start(EntryField.IO);
        int end = entry.end(EntryField.IO);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeFieldName("io");
            if (plain) {
                assertThat(copy.copyPlain(json, entry.data(), start, end, elements)).as("taken without a parser").isTrue();
            } else {
                copy.copyParsed(json, entry, start, end, elements);
            }
            copy.writeNamed(json);
            json.writeEndObject();
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
