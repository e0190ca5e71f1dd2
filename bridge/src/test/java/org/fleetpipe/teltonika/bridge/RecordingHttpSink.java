package org.fleetpipe.teltonika.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An HTTP endpoint that takes JSON-lines batches and keeps each device's records in arrival order;
 * it answers with whatever status the test sets, to fail on purpose.
 */
final class RecordingHttpSink implements AutoCloseable {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final HttpServer server;
    private final Map<String, List<JsonNode>> byDevice = new ConcurrentHashMap<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicReference<Integer> failWith = new AtomicReference<>();
    private volatile String failBody = "";

    RecordingHttpSink() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/ingest", exchange -> {
            try (exchange) {
                byte[] body = exchange.getRequestBody().readAllBytes();
                requests.incrementAndGet();
                Integer failure = failWith.get();
                if (failure != null) {
                    byte[] answer = failBody.getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(failure, answer.length == 0 ? -1 : answer.length);
                    if (answer.length > 0) {
                        try (OutputStream out = exchange.getResponseBody()) {
                            out.write(answer);
                        }
                    }
                    return;
                }
                List<JsonNode> lines = new ArrayList<>();
                for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
                    if (!line.isEmpty()) {
                        lines.add(MAPPER.readTree(line));
                    }
                }
                synchronized (byDevice) {
                    for (JsonNode record : lines) {
                        byDevice.computeIfAbsent(record.get("imei").asText(), imei -> new ArrayList<>()).add(record);
                    }
                }
                accepted.addAndGet(lines.size());
                exchange.sendResponseHeaders(204, -1);
            }
        });
        server.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/ingest");
    }

    /** From now on every request is answered with {@code status} and {@code body}; null to accept again. */
    void failWith(Integer status, String body) {
        failBody = body;
        failWith.set(status);
    }

    int accepted() {
        return accepted.get();
    }

    int requests() {
        return requests.get();
    }

    List<JsonNode> recordsOf(String imei) {
        synchronized (byDevice) {
            return new ArrayList<>(byDevice.getOrDefault(imei, List.of()));
        }
    }

    Map<String, List<JsonNode>> byDevice() {
        synchronized (byDevice) {
            Map<String, List<JsonNode>> copy = new java.util.HashMap<>();
            byDevice.forEach((imei, records) -> copy.put(imei, new ArrayList<>(records)));
            return copy;
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
