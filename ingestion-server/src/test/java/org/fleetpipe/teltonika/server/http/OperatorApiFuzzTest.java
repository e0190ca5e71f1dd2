package org.fleetpipe.teltonika.server.http;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpClientCodec;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.fleetpipe.teltonika.codec.testing.RecordingLeakDetector;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.api.CaptureResource;
import org.fleetpipe.teltonika.server.api.CommandResource;
import org.fleetpipe.teltonika.server.api.DeviceModelResource;
import org.fleetpipe.teltonika.server.api.DeviceResource;
import org.fleetpipe.teltonika.server.api.OperatorApi;
import org.fleetpipe.teltonika.server.command.CommandService;
import org.fleetpipe.teltonika.server.command.CommandSettings;
import org.fleetpipe.teltonika.server.command.ReplyWaiter;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.session.DeviceLookup;

/**
 * The operator API as a client reaches it: bytes into the pipeline {@link OperatorHttpServer}
 * builds ({@link HttpChannelInitializer}: codec, connection cap, sequencer, the head's checks,
 * aggregator, router) on an EmbeddedChannel, with the real device and command resources of the
 * operator API over a {@link FakeCommandStore} and a Redis stand-in instead of Redis.
 *
 * <p>Input layout (see FUZZING.md): byte 0 flags, then the request.
 * <ul>
 *   <li>flags bits 0-1: the store accepts (0, 3), answers "queue full" (1) or fails (2);</li>
 *   <li>bit 2: {@code Connection: close}; bit 4: no Authorization header;</li>
 *   <li>bit 3 clear: the rest is {@code METHOD URI\nBODY} (no space: POST and the whole line is the
 *       URI) and the harness writes a request around it with the right token and Content-Length;
 *       bit 3 set: the rest is sent as raw bytes (pipelining, odd headers, chunked bodies ...).</li>
 * </ul>
 *
 * <p>Invariants: every answer parses as an HTTP response; no status of 500 or more, but 503
 * {@code redis-unavailable} when the store fails; every 4xx/503 a JSON object of exactly
 * {@code error} and {@code message}; no Java class name or
 * stack trace in any body unless the request put it there; exactly one answer to a structured
 * request; no buffer leaked (the recording leak detector is drained after every input).
 */
class OperatorApiFuzzTest {

    static final String TOKEN = "fuzz-token";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> FORBIDDEN = List.of("org.fleetpipe", "Exception", "\tat ", "\\tat ",
            "java.", "io.lettuce", "io.netty");

    private final FakeCommandStore store = new FakeCommandStore();
    private final ReplyWaiter waiter = new ReplyWaiter();
    private final HttpChannelInitializer pipeline;
    /** Methods of the requests the server read, in order, so the response parser knows HEAD answers. */
    private final List<io.netty.handler.codec.http.HttpMethod> methods = new ArrayList<>();
    /** What the server wrote for the last input, for the plain regression tests. */
    byte[] lastAnswers;

    OperatorApiFuzzTest() {
        CommandSettings settings = new CommandSettings(Duration.ofSeconds(30), Duration.ofHours(1),
                Duration.ofDays(7), 100, 512, Duration.ofSeconds(60), Duration.ofDays(7), 10000,
                Duration.ofSeconds(10), 3, Duration.ofSeconds(5), false);
        CommandResource commands = new CommandResource(new CommandService(store, waiter), null, settings,
                IngestionMetrics.noop());
        DeviceResource devices = new DeviceResource(new DeviceLookup(fakeRedis(), new RedisKeys("fuzz")), commands,
                new CaptureResource(null, null), new DeviceModelResource(null));
        store.onEnqueue = id -> finishedBeforeWait(waiter, id);
        pipeline = OperatorHttpServer.pipeline(new HttpConnections(1_000, null),
                () -> CompletableFuture.completedFuture(Readiness.ok()), () -> "# fuzz\n", new BearerTokenAuth(TOKEN),
                new OperatorApi(List.of(devices.resource(), commands.resource())), Duration.ofMinutes(2));
    }

    @FuzzTest(maxDuration = "10m")
    void operatorRequest(byte[] data) {
        int flags = data.length > 0 ? data[0] & 0xFF : 0;
        FakeCommandStore.Mode mode = switch (flags & 3) {
            case 1 -> FakeCommandStore.Mode.FULL;
            case 2 -> FakeCommandStore.Mode.FAIL;
            default -> FakeCommandStore.Mode.ACCEPT;
        };
        store.mode = mode;
        store.enqueued.clear();
        store.commands.clear();
        byte[] rest = data.length > 1 ? java.util.Arrays.copyOfRange(data, 1, data.length) : new byte[0];
        boolean raw = (flags & 8) != 0;
        byte[] request = raw ? rest : request(rest, (flags & 4) != 0, (flags & 16) == 0);
        String[] line = requestLine(request);
        boolean head = line.length > 0 && line[0].equals("HEAD");

        byte[] answers = exchange(request);
        lastAnswers = answers;
        List<String> responses = check(answers, request, mode, methods);
        if (!raw && !head) {
            check(responses.size() == 1, "%d answers to one request: %s", responses.size(), responses);
        }
        List<String> leaks = RecordingLeakDetector.drain();
        check(leaks.isEmpty(), "buffer leak: %s", leaks);
    }

    /** The first line's method, URI and version as Netty reads them: split at runs of whitespace. */
    static String[] requestLine(byte[] request) {
        String text = new String(request, StandardCharsets.ISO_8859_1);
        int eol = text.indexOf('\n');
        return (eol < 0 ? text : text.substring(0, eol)).trim().split("\\s+");
    }

    /** A request around the fuzzer's method, URI and body, as a well-behaved client writes it. */
    static byte[] request(byte[] rest, boolean close, boolean auth) {
        int nl = indexOf(rest, (byte) '\n');
        String line = new String(rest, 0, nl < 0 ? rest.length : nl, StandardCharsets.ISO_8859_1);
        byte[] body = nl < 0 ? new byte[0] : java.util.Arrays.copyOfRange(rest, nl + 1, rest.length);
        int sp = line.indexOf(' ');
        String method = sp < 0 ? "POST" : line.substring(0, sp);
        String uri = sp < 0 ? line : line.substring(sp + 1);
        StringBuilder head = new StringBuilder()
                .append(method).append(' ').append(uri).append(" HTTP/1.1\r\n")
                .append("Host: fuzz\r\n");
        if (auth) {
            head.append("Authorization: Bearer ").append(TOKEN).append("\r\n");
        }
        head.append("Content-Type: application/json\r\n")
                .append("Content-Length: ").append(body.length).append("\r\n");
        if (close) {
            head.append("Connection: close\r\n");
        }
        head.append("\r\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.writeBytes(body);
        return out.toByteArray();
    }

    /** Runs the request through the server pipeline; returns every byte the server wrote. */
    private byte[] exchange(byte[] request) {
        methods.clear();
        EmbeddedChannel channel = new EmbeddedChannel(pipeline);
        channel.pipeline().addAfter("codec", "methods", new MethodRecorder());
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        try {
            channel.writeInbound(Unpooled.wrappedBuffer(request));
            // Answers are written through the event loop's task queue, and each lets the next request in.
            for (int round = 0; round < 64 && channel.hasPendingTasks(); round++) {
                channel.runPendingTasks();
            }
            drain(channel, written);
        } finally {
            channel.finishAndReleaseAll();
        }
        return written.toByteArray();
    }

    private static void drain(EmbeddedChannel channel, ByteArrayOutputStream written) {
        Object out;
        while ((out = channel.readOutbound()) != null) {
            if (out instanceof ByteBuf buf) {
                try {
                    byte[] bytes = new byte[buf.readableBytes()];
                    buf.getBytes(buf.readerIndex(), bytes);
                    written.writeBytes(bytes);
                } finally {
                    buf.release();
                }
            } else {
                io.netty.util.ReferenceCountUtil.release(out);
                throw new AssertionError("server wrote a " + out.getClass() + ", not bytes");
            }
        }
    }

    /** Parses the server's bytes as HTTP responses and checks each; returns "status body" per response. */
    private static List<String> check(byte[] answers, byte[] request, FakeCommandStore.Mode mode,
                                      List<io.netty.handler.codec.http.HttpMethod> methods) {
        String requestText = new String(request, StandardCharsets.ISO_8859_1);
        EmbeddedChannel client = new EmbeddedChannel(new HttpClientCodec(), new HttpObjectAggregator(1024 * 1024));
        List<String> seen = new ArrayList<>();
        try {
            // The client codec pairs answers with the requests it sent: a HEAD answer has no body.
            for (io.netty.handler.codec.http.HttpMethod method : methods) {
                client.writeOutbound(new io.netty.handler.codec.http.DefaultFullHttpRequest(
                        io.netty.handler.codec.http.HttpVersion.HTTP_1_1, method, "/"));
            }
            Object sent;
            while ((sent = client.readOutbound()) != null) {
                io.netty.util.ReferenceCountUtil.release(sent);
            }
            client.writeInbound(Unpooled.wrappedBuffer(answers));
            Object in;
            while ((in = client.readInbound()) != null) {
                FullHttpResponse response = (FullHttpResponse) in;
                try {
                    seen.add(checkOne(response, requestText, mode));
                } finally {
                    response.release();
                }
            }
        } finally {
            try {
                client.finishAndReleaseAll();
            } catch (io.netty.handler.codec.PrematureChannelClosureException e) {
                // HttpServerCodec sends a HEAD answer's headers only, which a plain response decoder
                // takes for a cut-off body. Without a HEAD request it is a truncated response.
                check(requestText.contains("HEAD "), "response cut off: %s",
                        new String(answers, StandardCharsets.ISO_8859_1));
            }
        }
        return seen;
    }

    private static String checkOne(FullHttpResponse response, String requestText, FakeCommandStore.Mode mode) {
        int status = response.status().code();
        String body = response.content().toString(StandardCharsets.UTF_8);
        String seen = status + " " + body;
        check(response.decoderResult().isSuccess(), "malformed response: %s", response.decoderResult());
        if (status >= 500) {
            check(status == 503 && mode == FakeCommandStore.Mode.FAIL, "server error %s", seen);
        }
        if (status >= 400) {
            // The answer to HEAD: the headers of the JSON answer, without its body.
            boolean headAnswer = body.isEmpty()
                    && io.netty.handler.codec.http.HttpUtil.getContentLength(response, 0L) > 0;
            if (!headAnswer) {
                check(String.valueOf(response.headers().get(HttpHeaderNames.CONTENT_TYPE)).startsWith(
                        "application/json"), "error without JSON content type: %s", seen);
                JsonNode json;
                try {
                    json = JSON.readTree(body);
                } catch (java.io.IOException e) {
                    throw new AssertionError("error body is not JSON: " + seen, e);
                }
                check(json != null && json.isObject() && json.size() == 2 && json.path("error").isTextual()
                        && json.path("message").isTextual(), "error body not {error, message}: %s", seen);
                if (status == 503) {
                    check(json.get("error").asText().equals("redis-unavailable"), "503 of another kind: %s",
                            seen);
                }
            }
        }
        {
            // Words are looked for in the text a client reads: JSON strings decoded (a \u001E escape
            // followed by "xception" is not a class name), and allowed when the request itself
            // carried them (paths are echoed, after percent-decoding).
            String text = readable(body);
            String echoed = requestText + "\n" + percentDecoded(requestText);
            for (String word : FORBIDDEN) {
                check(!text.contains(word) || echoed.contains(word), "body reveals '%s': %s", word, seen);
            }
        }
        return seen;
    }

    /**
     * Makes a {@code wait_ms} request see its command as finished at once: ReplyWaiter's timeout
     * runs on the JDK's timer thread, and an answer written from there would race with this
     * single-threaded harness (EmbeddedChannel). The waiter is final, so its map is filled by
     * reflection with a completed future, as if the reply had come before the wait began.
     */
    @SuppressWarnings("unchecked")
    private static void finishedBeforeWait(ReplyWaiter waiter, String id) {
        try {
            java.lang.reflect.Field field = ReplyWaiter.class.getDeclaredField("waiting");
            field.setAccessible(true);
            ((Map<String, CompletableFuture<Void>>) field.get(waiter)).put(id, CompletableFuture.completedFuture(null));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Notes each request's method on its way to the router. */
    private final class MethodRecorder extends io.netty.channel.ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof io.netty.handler.codec.http.HttpRequest request) {
                methods.add(request.method());
            }
            ctx.fireChannelRead(msg);
        }
    }

    private static String readable(String body) {
        try {
            JsonNode json = JSON.readTree(body);
            if (json == null) {
                return body;
            }
            StringBuilder text = new StringBuilder();
            collect(json, text);
            return text.toString();
        } catch (java.io.IOException notJson) {
            return body;
        }
    }

    private static void collect(JsonNode node, StringBuilder text) {
        if (node.isTextual()) {
            text.append(node.asText()).append('\n');
        }
        node.fieldNames().forEachRemaining(name -> text.append(name).append('\n'));
        node.forEach(child -> collect(child, text));
    }

    private static String percentDecoded(String text) {
        try {
            return io.netty.handler.codec.http.QueryStringDecoder.decodeComponent(text,
                    StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return text;
        }
    }

    /** The two Redis calls DeviceLookup makes: no owner (not connected), or the store's failure. */
    private RedisAsyncCommands<String, String> fakeRedis() {
        @SuppressWarnings("unchecked")
        RedisAsyncCommands<String, String> redis = (RedisAsyncCommands<String, String>) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {RedisAsyncCommands.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "hget", "hgetall" -> {
                            @SuppressWarnings({"unchecked", "rawtypes"})
                            AsyncCommand<String, String, Object> reply = new AsyncCommand(
                                    new Command<>(CommandType.valueOf(method.getName().toUpperCase()),
                                            new StatusOutput<>(StringCodec.UTF8)));
                            if (store.mode == FakeCommandStore.Mode.FAIL) {
                                reply.completeExceptionally(FakeCommandStore.redisDown());
                            } else {
                                reply.complete(method.getName().equals("hget") ? null : Map.of());
                            }
                            return reply;
                        }
                        case "toString" -> {
                            return "fake redis";
                        }
                        default -> throw new UnsupportedOperationException(method.getName());
                    }
                });
        return redis;
    }

    private static int indexOf(byte[] bytes, byte b) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    static void check(boolean ok, String format, Object... args) {
        if (!ok) {
            throw new AssertionError(String.format(format, args));
        }
    }

}
