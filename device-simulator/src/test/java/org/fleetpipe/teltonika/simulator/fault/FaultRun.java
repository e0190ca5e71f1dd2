package org.fleetpipe.teltonika.simulator.fault;

import static org.awaitility.Awaitility.await;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.fleetpipe.teltonika.simulator.cli.SimulatorCommand;
import org.fleetpipe.teltonika.simulator.run.RunResult;
import org.fleetpipe.teltonika.simulator.run.Simulation;

/**
 * A simulated fleet behind a "load balancer" over some replicas, recording every acknowledged record. The
 * load runs until the test has played its fault through and calls {@link #finishAfter}: a fixed duration
 * would have to cover the slowest fault on a busy machine and idle through the rest on a quiet one.
 */
final class FaultRun {

    /** A bound only, should a test fail before it ends the load. */
    private static final int MAX_SECONDS = 180;

    private final Set<String> acknowledged;
    private final Simulation simulation;
    private final CompletableFuture<RunResult> run;

    private FaultRun(Set<String> acknowledged, Simulation simulation, CompletableFuture<RunResult> run) {
        this.acknowledged = acknowledged;
        this.simulation = simulation;
        this.run = run;
    }

    /** Starts {@code devices} devices sending 5 records every 200 ms until {@link #finishAfter}. */
    static FaultRun start(List<InetSocketAddress> replicas, int devices) throws Exception {
        return start(replicas, devices, null);
    }

    /** As above, every session tapped by {@code wire} (null: none). */
    static FaultRun start(List<InetSocketAddress> replicas, int devices, WireRecorder wire) throws Exception {
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        Simulation simulation = new Simulation(SimulatorCommand.parse("--host", "127.0.0.1", "--port",
                Integer.toString(replicas.get(0).getPort()), "--devices", Integer.toString(devices), "--interval",
                "200ms", "--records", "5", "--codec", "mixed", "--duration", MAX_SECONDS + "s", "--progress", "0s",
                "--ack-timeout", "3s", "--backoff-min", "100ms", "--backoff-max", "1s", "--drain", "30s"),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
                .behindBalancer(replicas)
                .tapConnections(wire == null ? null : wire::tap)
                .onAcknowledged((imei, records) -> records.forEach(r -> acknowledged.add(imei + ":" + r.timestamp())));
        return new FaultRun(acknowledged, simulation, CompletableFuture.supplyAsync(() -> {
            try {
                return simulation.run();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }));
    }

    /** Records acknowledged so far (live). */
    Set<String> acknowledged() {
        return acknowledged;
    }

    /**
     * Once {@code more} records beyond those acknowledged so far are acknowledged too (the fleet carries on
     * after the fault), ends the sending and waits for the run: it still waits up to --drain for the last ACKs.
     */
    RunResult finishAfter(int more) throws Exception {
        int target = acknowledged.size() + more;
        await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() >= target);
        simulation.endSending();
        return run.get(120, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** The {imei:ts} of every record in the stream. */
    static Set<String> stored(RedisCommands<String, String> commands) {
        Set<String> stored = new HashSet<>();
        String from = "-";
        while (true) {
            List<StreamMessage<String, String>> page = commands.xrange("telemetry", Range.create(from, "+"),
                    Limit.from(10_000));
            for (StreamMessage<String, String> m : page) {
                stored.add(m.getBody().get("imei") + ":" + m.getBody().get("ts"));
            }
            if (page.size() < 10_000) {
                return stored;
            }
            from = "(" + page.get(page.size() - 1).getId();
        }
    }

    static int readiness(int httpPort) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort
                    + "/health/ready")).timeout(java.time.Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }
}
