package org.fleetpipe.teltonika.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An HTTP endpoint that takes JSON-lines batches and keeps each device's records in arrival order.
 * It fails on purpose: answers with a status the test sets, answers slowly, or goes away entirely
 * (nothing listening on its port) and comes back on the same port.
 */
final class RecordingHttpSink implements AutoCloseable {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Map<String, List<JsonNode>> byDevice = new HashMap<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicReference<Integer> failWith = new AtomicReference<>();
    private final ExecutorService threads = Executors.newFixedThreadPool(8);
    private volatile String failBody = "";
    /** A record that makes any request holding it answered 400, taking none of the request; null for none. */
    private volatile java.util.function.Predicate<JsonNode> poison;
    private volatile long delayMillis;
    private final int port;
    private HttpServer server;

    RecordingHttpSink() throws IOException {
        server = listen(0);
        port = server.getAddress().getPort();
    }

    private HttpServer listen(int onPort) throws IOException {
        HttpServer listening = HttpServer.create(new InetSocketAddress("127.0.0.1", onPort), 64);
        listening.setExecutor(threads);
        listening.createContext("/ingest", this::handle);
        listening.start();
        return listening;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            requests.incrementAndGet();
            if (delayMillis > 0) {
                try {
                    Thread.sleep(delayMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
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
            java.util.function.Predicate<JsonNode> refused = poison;
            if (refused != null && lines.stream().anyMatch(refused)) {
                byte[] answer = "{\"error\":\"a record is invalid\"}".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(400, answer.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answer);
                }
                return;
            }
            synchronized (byDevice) {
                for (JsonNode record : lines) {
                    byDevice.computeIfAbsent(record.get("imei").asText(), imei -> new ArrayList<>()).add(record);
                }
                accepted.addAndGet(lines.size());
            }
            exchange.sendResponseHeaders(204, -1);
        }
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + port + "/ingest");
    }

    /** From now on every request is answered with {@code status} and {@code body}; null to accept again. */
    void failWith(Integer status, String body) {
        failBody = body;
        failWith.set(status);
    }

    /** From now on a request holding a record {@code refused} matches is answered 400 as a whole. */
    void refuseRequestsHolding(java.util.function.Predicate<JsonNode> refused) {
        poison = refused;
    }

    /** Each request is answered this much later: batches stay in flight. */
    void delay(long millis) {
        delayMillis = millis;
    }

    /** Stops listening: connections are refused until {@link #up()}. */
    synchronized void down() {
        server.stop(0);
    }

    /** Listens again on the same port. */
    synchronized void up() throws IOException {
        server = listen(port);
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

    /** Different records taken: by device and time, so a record taken twice counts once. */
    int distinct() {
        synchronized (byDevice) {
            Set<String> seen = new HashSet<>();
            byDevice.forEach((imei, records) -> records.forEach(r -> seen.add(imei + "/" + r.get("ts").asLong())));
            return seen.size();
        }
    }

    Map<String, List<JsonNode>> byDevice() {
        synchronized (byDevice) {
            Map<String, List<JsonNode>> copy = new HashMap<>();
            byDevice.forEach((imei, records) -> copy.put(imei, new ArrayList<>(records)));
            return copy;
        }
    }

    @Override
    public synchronized void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
