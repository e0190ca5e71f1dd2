package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Named commands over real HTTP and a real device socket: a template's text reaches the logged-in
 * device byte for byte in its Codec 12 (or 14) frame, bad templates and arguments are 400s that
 * queue nothing, and the listing is served to the read-only token.
 */
@WithRedis
class CommandTemplatesIT {

    private static final String OPERATOR = "tpl-operator-token-0123456789abcdef01234";
    private static final String READER = "tpl-reader-token-0123456789abcdef0123456";
    /** Small, so a setparam with long values builds a text over it. */
    private static final int MAX_COMMAND_BYTES = 120;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private IngestionServer server;
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;

    @BeforeEach
    void start(RedisFixture fixture) throws Exception {
        server = ItServer.start(fixture, false, Map.of("api-token", OPERATOR, "api-token-read", READER,
                "commands.max-command-bytes", MAX_COMMAND_BYTES));
        connection = fixture.client().connect();
        redis = connection.sync();
    }

    @AfterEach
    void stop() throws Exception {
        connection.close();
        server.close();
    }

    private HttpResponse<String> send(String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + server.httpAddress().getPort() + path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> command(String imei, String body) throws Exception {
        return send("POST", "/api/v1/devices/" + imei + "/commands", OPERATOR, body);
    }

    /** The device reads the next command frame and answers {@code reply}, on another thread. */
    private static CompletableFuture<CommandFrame> answer(DeviceClient device, CommandFrame reply) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                byte[] received = device.readFrame();
                device.send(Frames.command(reply));
                return new CommandFrameDecoder(DecodeLimits.DEFAULTS)
                        .decode(Unpooled.wrappedBuffer(Frames.body(received)));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aTemplate_reachesTheConnectedDevice_asTheExactDocumentedText() throws Exception {
        String imei = TestImeis.numbered(11);
        try (DeviceClient device = DeviceClient.connect(ItServer.loopback(server.tcpAddress()))) {
            assertThat(device.login(imei)).isEqualTo(1);

            CompletableFuture<CommandFrame> first = answer(device,
                    CommandFrame.codec12Response("DOUT1:ON Timeout:INFINITY DOUT2:IGNORED DOUT3:OFF"));
            HttpResponse<String> setdigout = command(imei,
                    "{\"template\":\"setdigout\",\"args\":{\"out1\":1,\"out3\":0},\"wait_ms\":20000}");
            CommandFrame sent = first.join();
            assertThat(sent.codec().label()).isEqualTo("12");
            assertThat(sent.text()).isEqualTo("setdigout 1?0");
            assertThat(setdigout.statusCode()).as(setdigout.body()).isEqualTo(200);
            JsonNode view = json.readTree(setdigout.body());
            assertThat(view.path("command").asText()).isEqualTo("setdigout 1?0");
            assertThat(view.path("template").asText()).isEqualTo("setdigout");
            assertThat(view.path("status").asText()).isEqualTo("replied");
            assertThat(view.path("reply").asText()).startsWith("DOUT1:ON");
            assertThat(redis.hget("command:" + view.path("id").asText(), "template")).isEqualTo("setdigout");

            CompletableFuture<CommandFrame> second = answer(device,
                    CommandFrame.codec14Response(imei, "New value 2001:internet;1000:300;"));
            HttpResponse<String> setparam = command(imei, "{\"template\":\"setparam\",\"args\":{\"values\":"
                    + "{\"2001\":\"internet\",\"1000\":300}},\"codec\":14,\"ttl_ms\":60000,\"max_attempts\":1,"
                    + "\"wait_ms\":20000}");
            assertThat(second.join().text()).isEqualTo("setparam 2001:internet;1000:300");
            assertThat(second.join().imei()).isEqualTo(imei);
            assertThat(setparam.statusCode()).as(setparam.body()).isEqualTo(200);
            assertThat(json.readTree(setparam.body()).path("max_attempts").asInt()).isEqualTo(1);

            CompletableFuture<CommandFrame> third = answer(device, CommandFrame.codec12Response("ok"));
            HttpResponse<String> getinfo = command(imei, "{\"template\":\"getinfo\",\"wait_ms\":20000}");
            assertThat(third.join().text()).isEqualTo("getinfo");
            assertThat(json.readTree(getinfo.body()).path("template").asText()).isEqualTo("getinfo");

            CompletableFuture<CommandFrame> typed = answer(device, CommandFrame.codec12Response("ok"));
            HttpResponse<String> plain = command(imei, "{\"command\":\"getver\",\"wait_ms\":20000}");
            assertThat(typed.join().text()).isEqualTo("getver");
            assertThat(json.readTree(plain.body()).has("template")).as("a typed command has no template").isFalse();
        }
    }

    @Test
    void badTemplatesAndArguments_are400sNamingThem_andQueueNothing() throws Exception {
        String imei = TestImeis.numbered(12);
        String[][] cases = {
            {"{}", "command-or-template", "either command"},
            {"{\"command\":\"getinfo\",\"template\":\"getinfo\"}", "command-or-template", "not both"},
            {"{\"command\":\"getinfo\",\"args\":{}}", "command-or-template", "args only with template"},
            {"{\"template\":\"reboot\"}", "unknown-template", "'reboot'"},
            {"{\"template\":5}", "unknown-template", "template"},
            {"{\"template\":\"readio\"}", "bad-template-argument", "readio needs id"},
            {"{\"template\":\"readio\",\"args\":{\"id\":\"21\"}}", "bad-template-argument", "id must be"},
            {"{\"template\":\"readio\",\"args\":{\"id\":70000}}", "bad-template-argument", "1..65535"},
            {"{\"template\":\"readio\",\"args\":{\"id\":21.0}}", "bad-template-argument", "id must be"},
            {"{\"template\":\"readio\",\"args\":[21]}", "bad-template-argument", "args must be an object"},
            {"{\"template\":\"readio\",\"args\":null}", "bad-template-argument", "args must be an object"},
            {"{\"template\":\"getinfo\",\"args\":{\"verbose\":true}}", "bad-template-argument", "'verbose'"},
            {"{\"template\":\"setdigout\",\"args\":{}}", "bad-template-argument", "at least one of out1"},
            {"{\"template\":\"setdigout\",\"args\":{\"out2\":2}}", "bad-template-argument", "out2"},
            {"{\"template\":\"setdigout\",\"args\":{\"out5\":1}}", "bad-template-argument", "'out5'"},
            {"{\"template\":\"getparam\",\"args\":{\"ids\":[2001,2001]}}", "bad-template-argument", "twice"},
            {"{\"template\":\"setparam\",\"args\":{\"values\":{\"2001\":\"a;2002:b\"}}}", "bad-template-argument",
                "without ';' or ':'"},
            {"{\"template\":\"setparam\",\"args\":{\"values\":{\"2001\":\"" + "x".repeat(200) + "\"}}}",
                "bad-template-argument", "COMMAND_MAX_BYTES"},
            {"{\"template\":\"getinfo\",\"codec\":13}", "bad-codec", "codec"},
        };
        for (String[] c : cases) {
            HttpResponse<String> response = command(imei, c[0]);
            JsonNode error = json.readTree(response.body());
            assertThat(response.statusCode()).as(c[0]).isEqualTo(400);
            assertThat(error.path("error").asText()).as(c[0]).isEqualTo(c[1]);
            assertThat(error.path("message").asText()).as(c[0]).contains(c[2]);
        }
        assertThat(redis.exists("commands:queue:" + imei)).as("no refused request queued anything").isZero();

        HttpResponse<String> queued = command(imei, "{\"template\":\"getparam\",\"args\":{\"ids\":[2001,2002]}}");
        assertThat(queued.statusCode()).isEqualTo(202);
        String id = json.readTree(queued.body()).path("id").asText();
        assertThat(redis.hgetall("command:" + id)).containsEntry("command", "getparam 2001;2002")
                .containsEntry("template", "getparam");
        assertThat(send("POST", "/api/v1/devices/" + imei + "/commands", READER,
                "{\"template\":\"getinfo\"}").statusCode()).as("the read token may not send").isEqualTo(403);
    }

    @Test
    void theListing_isServedToTheReadToken_withEachArgumentsTypeAndLimits() throws Exception {
        HttpResponse<String> listing = send("GET", "/api/v1/command-templates", READER, null);
        assertThat(listing.statusCode()).isEqualTo(200);
        assertThat(listing.headers().firstValue("content-type").orElse("")).contains("application/json");
        JsonNode templates = json.readTree(listing.body()).path("templates");
        List<String> names = new ArrayList<>();
        templates.forEach(t -> names.add(t.path("name").asText()));
        assertThat(names).containsExactly("getinfo", "getver", "getstatus", "getgps", "readio", "setdigout",
                "getparam", "setparam", "cpureset", "web_connect");

        JsonNode readio = templates.get(4);
        assertThat(readio.path("syntax").asText()).isEqualTo("readio <id>");
        JsonNode id = readio.path("arguments").get(0);
        assertThat(id.path("name").asText()).isEqualTo("id");
        assertThat(id.path("type").asText()).isEqualTo("integer");
        assertThat(id.path("required").asBoolean()).isTrue();
        assertThat(id.path("min").asLong()).isEqualTo(1);
        assertThat(id.path("max").asLong()).isEqualTo(65535);
        assertThat(id.has("max_items")).as("limits of other types are left out").isFalse();

        JsonNode out3 = templates.get(5).path("arguments").get(2);
        assertThat(out3.path("name").asText()).isEqualTo("out3");
        assertThat(out3.path("required").asBoolean()).isFalse();
        assertThat(out3.path("allowed").toString()).isEqualTo("[0,1]");

        JsonNode values = templates.get(7).path("arguments").get(0);
        assertThat(values.path("type").asText()).isEqualTo("id-value-map");
        assertThat(values.path("max_items").asInt()).isEqualTo(50);
        assertThat(values.path("max_length").asInt()).isEqualTo(255);
        assertThat(templates.get(0).path("arguments").size()).isZero();

        assertThat(send("GET", "/api/v1/command-templates", null, null).statusCode()).isEqualTo(401);
        assertThat(send("POST", "/api/v1/command-templates", OPERATOR, "{}").statusCode()).isEqualTo(405);
    }
}
