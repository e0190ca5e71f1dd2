package org.fleetpipe.teltonika.bridge.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/** {@code /metrics} for Prometheus and {@code /health/live}, {@code /health/ready} for Kubernetes. */
public final class BridgeHttpServer implements AutoCloseable {

    /** What readiness answers: ready or not, and a line saying why. */
    public record Readiness(boolean ready, String detail) {}

    private final HttpServer server;

    public BridgeHttpServer(String host, int port, PrometheusMeterRegistry registry, Supplier<Readiness> readiness)
            throws IOException {
        server = HttpServer.create(new InetSocketAddress(host, port), 64);
        server.setExecutor(Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "bridge-http");
            thread.setDaemon(true);
            return thread;
        }));
        server.createContext("/metrics", exchange -> answer(exchange, 200,
                "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
        server.createContext("/health/live", exchange -> answer(exchange, 200, "application/json",
                "{\"status\":\"UP\"}"));
        server.createContext("/health/ready", exchange -> {
            Readiness now = readiness.get();
            answer(exchange, now.ready() ? 200 : 503, "application/json",
                    "{\"status\":\"" + (now.ready() ? "UP" : "DOWN") + "\",\"detail\":\""
                            + now.detail().replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
        });
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void answer(HttpExchange exchange, int status, String type, String body) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("GET")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
