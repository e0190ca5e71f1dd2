package org.fleetpipe.teltonika.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.Range;
import io.lettuce.core.api.sync.RedisCommands;
import io.netty.buffer.Unpooled;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.codec.command.CommandFrame;
import org.fleetpipe.teltonika.codec.command.CommandFrameDecoder;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.fleetpipe.teltonika.codec.testing.Hex;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.testkit.junit.WithRedis;
import org.fleetpipe.teltonika.server.IngestionServer;
import org.fleetpipe.teltonika.server.testing.DeviceClient;
import org.fleetpipe.teltonika.server.testing.InProcessServers;
import org.fleetpipe.teltonika.server.testing.Frames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Operator commands across two instances in one JVM sharing a real Redis: the device is on A,
 * the operator talks to B; routing happens only through Redis.
 */
@WithRedis
class CommandsIT {

    private static final String TOKEN = "cmd-token-0123456789abcdef0123456789abcdef";
    private static final String IMEI = "352093081452251";
    private static final String GETINFO_HEX = GoldenVectors.ofKind("command").stream()
            .filter(v -> v.codec().equals("12")).findFirst().orElseThrow().hex().toUpperCase();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private InProcessServers cluster;
    private RedisCommands<String, String> commands;

    @BeforeEach
    void connect(RedisFixture redis) {
        cluster = new InProcessServers(redis, Map.of("api-token", TOKEN));
        commands = cluster.redis();
    }

    @AfterEach
    void tearDown() throws Exception {
        cluster.close();
    }

    private IngestionServer server(String prefix, Map<String, Object> extra) throws InterruptedException {
        Map<String, Object> settings = new HashMap<>(extra);
        settings.put("instance-id-prefix", prefix);
        return cluster.start(settings);
    }

    private DeviceClient device(IngestionServer on) throws Exception {
        DeviceClient device = cluster.connect(on);
        assertThat(device.login(IMEI)).isEqualTo(1);
        return device;
    }

    private HttpResponse<String> post(IngestionServer to, String body, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + to.httpAddress().getPort() + "/api/v1/devices/" + IMEI + "/commands"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode status(IngestionServer at, String id) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + at.httpAddress().getPort()
                + "/api/v1/commands/" + id)).header("Authorization", "Bearer " + TOKEN).build();
        return json.readTree(http.send(request, HttpResponse.BodyHandlers.ofString()).body());
    }

    private static CommandFrame decode(byte[] frame) {
        return new CommandFrameDecoder(DecodeLimits.DEFAULTS).decode(Unpooled.wrappedBuffer(Frames.body(frame)));
    }

    /** The device reads the next command and answers it with {@code reply} (on another thread). */
    private static CompletableFuture<byte[]> answer(DeviceClient device, CommandFrame reply) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                byte[] received = device.readFrame();
                device.send(Frames.command(reply));
                return received;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void codec12_postedToB_reachesTheDeviceOnA_byteExact_andBsAnswerCarriesTheReply() throws Exception {
        IngestionServer a = server("a", Map.of());
        IngestionServer b = server("b", Map.of());
        DeviceClient device = device(a);
        CompletableFuture<byte[]> received = answer(device, CommandFrame.codec12Response("FW:03.27.07 Hw:FMB920"));

        HttpResponse<String> response = post(b, "{\"command\":\"getinfo\",\"codec\":12,\"wait_ms\":10000}", TOKEN);

        assertThat(Hex.of(received.get())).isEqualTo(GETINFO_HEX);
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = json.readTree(response.body());
        assertThat(body.get("status").asText()).isEqualTo("replied");
        assertThat(body.get("reply").asText()).isEqualTo("FW:03.27.07 Hw:FMB920");
        assertThat(body.get("attempts").asInt()).isEqualTo(1);
        // AVL keeps flowing and is acked as usual after the command.
        assertThat(device.sendAndReadAck(GoldenVectors.ofKind("avl").get(0).bytes())).isEqualTo(1);
    }

    @Test
    void codec14_withAck_andWithNack_onAnImeiMismatch() throws Exception {
        IngestionServer a = server("a", Map.of());
        IngestionServer b = server("b", Map.of());
        DeviceClient device = device(a);

        CompletableFuture<byte[]> first = answer(device, CommandFrame.codec14Response(IMEI, "Ver:03.27.07"));
        JsonNode acked = json.readTree(post(b, "{\"command\":\"getver\",\"codec\":14,\"wait_ms\":10000}", TOKEN)
                .body());
        CommandFrame sent = decode(first.get());
        assertThat(sent.codec().label()).isEqualTo("14");
        assertThat(sent.imei()).isEqualTo(IMEI);
        assertThat(sent.text()).isEqualTo("getver");
        assertThat(acked.get("status").asText()).isEqualTo("replied");
        assertThat(acked.get("reply").asText()).isEqualTo("Ver:03.27.07");

        answer(device, CommandFrame.codec14Nack(IMEI));
        JsonNode nacked = json.readTree(post(b, "{\"command\":\"getver\",\"codec\":14,\"wait_ms\":10000}", TOKEN)
                .body());
        assertThat(nacked.get("status").asText()).isEqualTo("failed");
        assertThat(nacked.get("reason").asText()).isEqualTo("nack");
        assertThat(deadLetterReasons()).containsExactly("nack");
    }

    @Test
    void commandForAnOfflineDevice_waits_andIsDeliveredWhenItLogsInOnEitherReplica() throws Exception {
        IngestionServer a = server("a", Map.of());
        IngestionServer b = server("b", Map.of());
        HttpResponse<String> queued = post(a, "{\"command\":\"getinfo\"}", TOKEN);
        assertThat(queued.statusCode()).isEqualTo(202);
        String id = json.readTree(queued.body()).get("id").asText();
        assertThat(status(a, id).get("status").asText()).isEqualTo("queued");

        DeviceClient device = device(b);
        byte[] received = device.readFrame();
        device.send(Frames.command(CommandFrame.codec12Response("ok")));

        assertThat(Hex.of(received)).isEqualTo(GETINFO_HEX);
        await().atMost(Duration.ofSeconds(10)).until(() -> status(a, id).get("status").asText().equals("replied"));
        assertThat(commands.llen("commands:queue:" + IMEI)).isZero();
    }

    @Test
    void noReplyInTime_failsWithTimeout_intoTheDeadLetters() throws Exception {
        IngestionServer a = server("a", Map.of("commands.reply-timeout", "500ms"));
        DeviceClient device = device(a);

        JsonNode failed = json.readTree(post(a, "{\"command\":\"getinfo\",\"wait_ms\":10000}", TOKEN).body());
        device.readFrame();

        assertThat(failed.get("status").asText()).isEqualTo("failed");
        assertThat(failed.get("reason").asText()).isEqualTo("timeout");
        assertThat(deadLetterReasons()).containsExactly("timeout");
        assertThat(commands.hlen("commands:inflight:" + a.instanceId())).isZero();
    }

    @Test
    void ttlPassedWhileTheDeviceWasOffline_expiresIntoTheDeadLetters() throws Exception {
        IngestionServer a = server("a", Map.of("commands.sweep-interval", "200ms"));
        String id = json.readTree(post(a, "{\"command\":\"getinfo\",\"ttl_ms\":300}", TOKEN).body()).get("id").asText();

        await().atMost(Duration.ofSeconds(10)).until(() -> status(a, id).get("status").asText().equals("failed"));
        assertThat(status(a, id).get("reason").asText()).isEqualTo("expired");
        assertThat(deadLetterReasons()).containsExactly("expired");
        assertThat(commands.llen("commands:queue:" + IMEI)).isZero();
    }

    @Test
    void deviceDisconnectsBeforeReplying_theCommandIsSentAgainAtItsNextLogin() throws Exception {
        IngestionServer a = server("a", Map.of());
        DeviceClient first = device(a);
        String id = json.readTree(post(a, "{\"command\":\"getinfo\"}", TOKEN).body()).get("id").asText();
        first.readFrame();
        first.close();

        DeviceClient second = device(a);
        byte[] again = second.readFrame();
        second.send(Frames.command(CommandFrame.codec12Response("ok")));

        assertThat(Hex.of(again)).isEqualTo(GETINFO_HEX);
        await().atMost(Duration.ofSeconds(10)).until(() -> status(a, id).get("status").asText().equals("replied"));
        assertThat(status(a, id).get("attempts").asInt()).isEqualTo(2);
    }

    @Test
    void deviceDropsBeforeReplyingAtEverySend_theCommandFailsWithAttempts_afterMaxAttemptsSends() throws Exception {
        IngestionServer a = server("a", Map.of());
        IngestionServer b = server("b", Map.of());
        // The request waits on B, where it was accepted; the hand-back on A ends the wait.
        CompletableFuture<HttpResponse<String>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return post(b, "{\"command\":\"cpureset\",\"max_attempts\":2,\"wait_ms\":30000}", TOKEN);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        for (int send = 1; send <= 2; send++) {
            // Like a reset: the device receives the command and drops the connection without a reply.
            DeviceClient device = device(a);
            device.readFrame();
            device.close();
        }

        HttpResponse<String> answered = waiting.get(30, java.util.concurrent.TimeUnit.SECONDS);
        JsonNode failed = json.readTree(answered.body());
        assertThat(answered.statusCode()).isEqualTo(200);
        assertThat(failed.get("status").asText()).isEqualTo("failed");
        assertThat(failed.get("reason").asText()).isEqualTo("attempts");
        assertThat(failed.get("attempts").asInt()).isEqualTo(2);
        assertThat(failed.get("max_attempts").asInt()).isEqualTo(2);
        assertThat(deadLetterReasons()).containsExactly("attempts");
        assertThat(commands.llen("commands:queue:" + IMEI)).isZero();
        assertThat(commands.hlen("commands:inflight:" + a.instanceId())).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> counter(a, "attempts") == 1.0);
    }

    @Test
    void maxAttemptsSetting_isTheDefault_andOneSendThatDropsFailsAtOnce() throws Exception {
        IngestionServer a = server("a", Map.of("commands.max-attempts", "1"));
        String id = json.readTree(post(a, "{\"command\":\"setparam 2001:apn\"}", TOKEN).body()).get("id").asText();
        assertThat(status(a, id).get("max_attempts").asInt()).isEqualTo(1);
        DeviceClient device = device(a);
        device.readFrame();
        device.close();

        await().atMost(Duration.ofSeconds(10)).until(() -> status(a, id).get("status").asText().equals("failed"));
        assertThat(status(a, id).get("reason").asText()).isEqualTo("attempts");
        assertThat(status(a, id).get("attempts").asInt()).isEqualTo(1);
        // The next login gets nothing: the device's AVL is answered by its ACK, not by the command again.
        DeviceClient again = device(a);
        assertThat(again.sendAndReadAck(GoldenVectors.ofKind("avl").get(0).bytes())).isEqualTo(1);
        assertThat(commands.llen("commands:queue:" + IMEI)).isZero();
    }

    @Test
    void commandHandedBackManyTimes_keepsABoundedHistory_firstStepAndTheNewest() throws Exception {
        IngestionServer a = server("a", Map.of());
        String id = json.readTree(post(a, "{\"command\":\"getinfo\",\"max_attempts\":15}", TOKEN).body())
                .get("id").asText();
        for (int send = 1; send <= 15; send++) {
            DeviceClient device = device(a);
            device.readFrame();
            device.close();
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> status(a, id).get("status").asText().equals("failed"));
        JsonNode command = status(a, id);
        JsonNode history = command.get("history");
        // 15 sends and 14 hand-backs are 31 steps with the queueing and the failure; 20 are kept.
        assertThat(command.get("attempts").asInt()).isEqualTo(15);
        assertThat(history.size()).isEqualTo(20);
        assertThat(history.get(0).get("status").asText()).isEqualTo("queued");
        assertThat(history.get(19).get("reason").asText()).isEqualTo("attempts");
        JsonNode deadLetter = json.readTree(commands.zrange("dlq:commands", 0, -1).get(0));
        assertThat(json.readTree(deadLetter.get("history").asText()).size()).isEqualTo(20);
    }

    @Test
    void lateReplyAfterATimeout_isNotCreditedToTheNextCommand_whichWaitsOutTheQuietGap() throws Exception {
        IngestionServer a = server("a", Map.of("commands.reply-timeout", "500ms", "commands.quiet-gap", "4s"));
        DeviceClient device = device(a);
        String first = json.readTree(post(a, "{\"command\":\"getinfo\"}", TOKEN).body()).get("id").asText();
        String second = json.readTree(post(a, "{\"command\":\"getver\"}", TOKEN).body()).get("id").asText();
        assertThat(decode(device.readFrame()).text()).isEqualTo("getinfo");

        await().atMost(Duration.ofSeconds(10)).until(() -> status(a, first).get("status").asText().equals("failed"));
        long timedOutAt = System.nanoTime();
        // The answer to the first command comes after its timeout: the next one is not sent yet.
        device.send(Frames.command(CommandFrame.codec12Response("late answer to getinfo")));
        byte[] next = device.readFrame();
        long gap = System.nanoTime() - timedOutAt;
        device.send(Frames.command(CommandFrame.codec12Response("Ver:03.27.07")));

        assertThat(decode(next).text()).isEqualTo("getver");
        assertThat(Duration.ofNanos(gap)).isGreaterThan(Duration.ofSeconds(3));
        await().atMost(Duration.ofSeconds(10)).until(() -> status(a, second).get("status").asText().equals("replied"));
        assertThat(status(a, second).get("reply").asText()).isEqualTo("Ver:03.27.07");
        assertThat(status(a, first).get("reason").asText()).isEqualTo("timeout");
        assertThat(status(a, first).get("reply").isNull()).isTrue();
        assertThat(commands.xrange("device:messages", Range.create("-", "+"))).singleElement()
                .satisfies(m -> assertThat(m.getBody()).containsEntry("text", "late answer to getinfo"));
    }

    @Test
    void codec13FromTheDevice_isKeptAsADeviceMessage_notAsAReply() throws Exception {
        IngestionServer a = server("a", Map.of());
        DeviceClient device = device(a);

        device.send(Frames.command(new CommandFrame(org.fleetpipe.teltonika.codec.CodecId.CODEC_13,
                CommandFrame.TYPE_COMMAND, null, 1_700_000_000L, "Driver ID: 42".getBytes())));

        await().atMost(Duration.ofSeconds(10)).until(() -> commands.xlen("device:messages") == 1);
        Map<String, String> message = commands.xrange("device:messages", Range.create("-", "+")).get(0).getBody();
        assertThat(message).containsEntry("imei", IMEI).containsEntry("codec", "13")
                .containsEntry("text", "Driver ID: 42").containsEntry("ts", "1700000000000");
    }

    @Test
    void badRequests_areRefusedWithTheErrorShape_andWrongTokensChangeNothing() throws Exception {
        IngestionServer a = server("a", Map.of("commands.max-queue-per-device", "2"));
        assertThat(post(a, "{\"command\":\"getinfo\"}", "wrong").statusCode()).isEqualTo(401);
        assertThat(post(a, "{\"command\":\"getinfo\"}", null).statusCode()).isEqualTo(401);
        assertThat(commands.exists("commands:queue:" + IMEI)).isZero();

        assertThat(errorOf(post(a, "not json", TOKEN))).isEqualTo("400 bad-json");
        assertThat(errorOf(post(a, "{\"command\":\"\"}", TOKEN))).isEqualTo("400 bad-command");
        assertThat(errorOf(post(a, "{\"command\":\"get\\u0007info\"}", TOKEN))).isEqualTo("400 bad-command");
        assertThat(errorOf(post(a, "{\"command\":\"getinfo\",\"codec\":13}", TOKEN))).isEqualTo("400 bad-codec");
        assertThat(errorOf(post(a, "{\"command\":\"getinfo\",\"wait_ms\":999999}", TOKEN))).isEqualTo("400 bad-wait");
        assertThat(errorOf(post(a, "{\"command\":\"getinfo\",\"ttl_ms\":0}", TOKEN))).isEqualTo("400 bad-ttl");
        for (String bad : List.of("0", "101", "-1", "\"2\"", "1.5", "true", "null", "[2]", "4294967297")) {
            assertThat(errorOf(post(a, "{\"command\":\"getinfo\",\"max_attempts\":" + bad + "}", TOKEN)))
                    .as("max_attempts %s", bad).isEqualTo("400 bad-max-attempts");
        }
        assertThat(commands.exists("commands:queue:" + IMEI)).as("no refused request queued anything").isZero();
        assertThat(post(a, "{\"command\":\"a\"}", TOKEN).statusCode()).isEqualTo(202);
        assertThat(post(a, "{\"command\":\"b\"}", TOKEN).statusCode()).isEqualTo(202);
        assertThat(errorOf(post(a, "{\"command\":\"c\"}", TOKEN))).isEqualTo("429 queue-full");
    }

    private static double counter(IngestionServer server, String outcome) {
        var counter = server.metrics().registry().find("teltonika.commands").tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    private String errorOf(HttpResponse<String> response) throws Exception {
        return response.statusCode() + " " + json.readTree(response.body()).get("error").asText();
    }

    private List<String> deadLetterReasons() throws Exception {
        List<String> reasons = new ArrayList<>();
        for (String entry : commands.zrange("dlq:commands", 0, -1)) {
            JsonNode node = json.readTree(entry);
            assertThat(node.has("id") && node.has("imei") && node.has("command") && node.has("codec")
                    && node.has("history") && node.has("attempts")).as("full context in %s", entry).isTrue();
            reasons.add(node.get("reason").asText());
        }
        return reasons;
    }
}
