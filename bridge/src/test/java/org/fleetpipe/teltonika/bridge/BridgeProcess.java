package org.fleetpipe.teltonika.bridge;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code bridge.jar} run as its own process, as Kubernetes runs it, so a test can SIGTERM or SIGKILL it. */
final class BridgeProcess implements AutoCloseable {

    static final Path JAR = Path.of("target", "bridge.jar");

    private final Process process;
    private final Path log;

    private BridgeProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Starts {@code java -jar bridge.jar args} with {@code REDIS_URL} set. */
    static BridgeProcess start(String redisUrl, String... args) throws IOException {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR.toAbsolutePath() + " is missing: run the package phase first");
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-jar",
                JAR.toString()));
        command.addAll(List.of(args));
        Path log = Files.createTempFile("bridge-process", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("REDIS_URL", redisUrl);
        return new BridgeProcess(builder.start(), log);
    }

    /** SIGKILL: no stop hook, no acknowledgement, no goodbye. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, then the exit code (or -1 when it did not exit within {@code seconds}). */
    int terminate(int seconds) throws InterruptedException {
        process.destroy();
        return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
    }

    String output() throws IOException {
        return Files.readString(log);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        new File(log.toString()).delete();
    }
}
