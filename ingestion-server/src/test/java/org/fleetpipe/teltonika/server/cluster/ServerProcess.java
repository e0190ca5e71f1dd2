package org.fleetpipe.teltonika.server.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.redislauncher.LoopbackPorts;

/**
 * The shaded server jar as a child process, as a user or Kubernetes runs it: settings through
 * environment variables, its log captured, stopped with SIGTERM or killed with SIGKILL.
 */
public final class ServerProcess implements AutoCloseable {

    /** The shaded development jar, seen from the ingestion-server module or from a sibling module. */
    static final Path JAR = built("ingestion-server.jar");
    /** The container image's jar: no test-kit, so no embedded Redis. */
    static final Path SLIM_JAR = built("ingestion-server-slim.jar");
    private static final int BIND_ATTEMPTS = 3;

    private final Process process;
    private final List<String> output = new CopyOnWriteArrayList<>();
    private final Thread pump;
    public final int tcpPort;
    public final int httpPort;

    private ServerProcess(Path jar, Map<String, String> env, int tcpPort, int httpPort) throws IOException {
        this.tcpPort = tcpPort;
        this.httpPort = httpPort;
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder builder = new ProcessBuilder(Files.isExecutable(java) ? java.toString() : "java", "-jar",
                jar.toString()).redirectErrorStream(true);
        builder.environment().remove("REDIS_URL");
        builder.environment().put("TCP_PORT", Integer.toString(tcpPort));
        builder.environment().put("UDP_PORT", "0");
        builder.environment().put("HTTP_PORT", Integer.toString(httpPort));
        builder.environment().put("HEALTH_PORT", "0");
        builder.environment().put("BIND_ADDRESS", "127.0.0.1");
        builder.environment().put("DRAIN_WINDOW", "0s");
        builder.environment().putAll(env);
        process = builder.start();
        pump = new Thread(this::pump, "server-output-" + tcpPort);
        pump.setDaemon(true);
        pump.start();
    }

    /**
     * Starts the jar with {@code env} on free ports and waits for its ready line; a port taken
     * between the check and the server's bind costs one more try on other ports, not the test.
     */
    public static ServerProcess start(Map<String, String> env) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            ServerProcess server = launch(JAR, env, freePort(), freePort());
            try {
                server.awaitLog("ready:", Duration.ofSeconds(60));
                return server;
            } catch (AssertionError e) {
                server.close();
                if (attempt >= BIND_ATTEMPTS || !server.logContains("Address already in use")) {
                    throw e;
                }
            }
        }
    }

    /** Starts the jar on the given ports (a restarted replica keeps its address) and waits for its ready line. */
    public static ServerProcess start(Map<String, String> env, int tcpPort, int httpPort)
            throws IOException, InterruptedException {
        ServerProcess server = launch(JAR, env, tcpPort, httpPort);
        server.awaitLog("ready:", Duration.ofSeconds(60));
        return server;
    }

    /** Starts {@code jar} with {@code env} on free ports without waiting for anything. */
    public static ServerProcess launch(Path jar, Map<String, String> env) throws IOException {
        return launch(jar, env, freePort(), freePort());
    }

    private static ServerProcess launch(Path jar, Map<String, String> env, int tcpPort, int httpPort)
            throws IOException {
        return new ServerProcess(jar, env, tcpPort, httpPort);
    }

    private static Path built(String jar) {
        Path here = Path.of("target", jar);
        return Files.exists(here) ? here : Path.of("..", "ingestion-server", "target", jar);
    }

    public void awaitLog(String text, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!logContains(text)) {
            if (!process.isAlive() && !logContains(text)) {
                throw new AssertionError("server exited (" + process.exitValue() + ") before logging '" + text
                        + "': " + output);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no '" + text + "' in the log within " + timeout + ": " + output);
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    /** Waits for the process to exit on its own and for its last output line; returns the exit code. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("still running after " + timeout + ": " + output);
        }
        pump.join(timeout.toMillis());
        return process.exitValue();
    }

    public boolean logContains(String text) {
        return output.stream().anyMatch(l -> l.contains(text));
    }

    public List<String> output() {
        return List.copyOf(output);
    }

    /** SIGTERM, through the handle: Process.destroy() would also close our end of its stdout. */
    public void terminate() {
        process.toHandle().destroy();
    }

    /** SIGKILL: no shutdown hook runs, as after a crash or an OOM kill. */
    public void kill() {
        process.toHandle().destroyForcibly();
    }

    public Process process() {
        return process;
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                output.add(line);
            }
        } catch (IOException ignored) {
            // the process ended
        }
    }

    /** A loopback port nothing listens on, outside the range outgoing connections draw from. */
    public static int freePort() {
        return LoopbackPorts.free();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.toHandle().destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
