package org.fleetpipe.teltonika.consumer;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.simulator.cli.SimulatorCommand;
import org.fleetpipe.teltonika.simulator.run.RunResult;
import org.fleetpipe.teltonika.simulator.run.Simulation;

/** The device simulator in this JVM, keeping what each acknowledged record looks like in the stream. */
final class SimulatedFleet {

    private final Map<String, String> acknowledged;
    private final CompletableFuture<RunResult> run;

    private SimulatedFleet(Map<String, String> acknowledged, CompletableFuture<RunResult> run) {
        this.acknowledged = acknowledged;
        this.run = run;
    }

    /** Starts the simulator with these command-line options (host, port and quiet output added). */
    static SimulatedFleet start(int port, String... options) throws Exception {
        Map<String, String> acknowledged = new ConcurrentHashMap<>();
        String[] args = new String[options.length + 6];
        System.arraycopy(new String[] {"--host", "127.0.0.1", "--port", Integer.toString(port), "--progress", "0s"}, 0,
                args, 0, 6);
        System.arraycopy(options, 0, args, 6, options.length);
        Simulation simulation = new Simulation(SimulatorCommand.parse(args),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
                .onAcknowledged((imei, records) -> records.forEach(r -> acknowledged.put(key(imei, r.timestamp()),
                        projection(r))));
        return new SimulatedFleet(acknowledged, CompletableFuture.supplyAsync(() -> {
            try {
                return simulation.run();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }));
    }

    static String key(String imei, long ts) {
        return imei + ":" + ts;
    }

    /** The fields of a record as the stream entry must carry them. */
    static String projection(AvlRecord r) {
        return "lat=" + degrees(r.gps().latitude()) + " lon=" + degrees(r.gps().longitude()) + " alt="
                + r.gps().altitude() + " speed=" + r.gps().speed() + " sat=" + r.gps().satellites() + " priority="
                + r.priority();
    }

    /** The same projection of a stream entry. */
    static String projection(Map<String, String> entry) {
        return "lat=" + entry.get("lat") + " lon=" + entry.get("lon") + " alt=" + entry.get("alt") + " speed="
                + entry.get("speed") + " sat=" + entry.get("sat") + " priority=" + entry.get("priority");
    }

    private static String degrees(int raw) {
        return BigDecimal.valueOf(raw, 7).stripTrailingZeros().toPlainString();
    }

    /** Acknowledged so far: imei:ts to the projection of the record. */
    Map<String, String> acknowledged() {
        return acknowledged;
    }

    RunResult finish() throws Exception {
        return run.get(180, TimeUnit.SECONDS);
    }
}
