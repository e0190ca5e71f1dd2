package org.fleetpipe.teltonika.server.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.codec.testing.GoldenVectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The README's run command as a user types it: the shaded jar, no REDIS_URL (so it starts its
 * embedded Redis), a device session, then SIGTERM. Runs after {@code package}, so the jar exists.
 */
class ServerJarProcessIT {

    private static final Path JAR = Path.of("target", "ingestion-server.jar");

    private final List<String> output = new CopyOnWriteArrayList<>();
    private Process process;

    @AfterEach
    void tearDown() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void jar_withoutRedisUrl_startsEmbeddedRedis_acksAPacket_andStopsCleanlyOnSigterm() throws Exception {
        assertThat(JAR).as("the shaded jar built by package").exists();
        int tcp = freePort();
        int http = freePort();
        int redisPort = freePort();
        ProcessBuilder builder = new ProcessBuilder(javaBin(), "-jar", JAR.toString()).redirectErrorStream(true);
        builder.environment().remove("REDIS_URL");
        builder.environment().put("TCP_PORT", Integer.toString(tcp));
        builder.environment().put("UDP_PORT", "0");
        builder.environment().put("HTTP_PORT", Integer.toString(http));
        builder.environment().put("EMBEDDED_REDIS_PORT", Integer.toString(redisPort));
        builder.environment().put("BIND_ADDRESS", "127.0.0.1");
        process = builder.start();
        Thread pump = new Thread(this::pumpOutput, "server-output");
        pump.setDaemon(true);
        pump.start();

        await().atMost(Duration.ofSeconds(60)).until(() -> logContains("ready:") || !process.isAlive());
        assertThat(process.isAlive()).as("server died: %s", output).isTrue();
        assertThat(output).anySatisfy(l -> assertThat(l).contains("embedded Redis").contains(":" + redisPort));
        assertThat(output).anySatisfy(l -> assertThat(l).contains("ready:").contains(":" + tcp).contains(":" + http));

        byte[] packet = GoldenVectors.ofKind("avl").get(0).bytes();
        try (Socket device = new Socket(InetAddress.getLoopbackAddress(), tcp)) {
            device.setSoTimeout(10_000);
            OutputStream out = device.getOutputStream();
            DataInputStream in = new DataInputStream(device.getInputStream());
            byte[] imei = "352093081452251".getBytes(StandardCharsets.US_ASCII);
            out.write(new byte[] {0, (byte) imei.length});
            out.write(imei);
            assertThat(in.readUnsignedByte()).isEqualTo(1);
            out.write(packet);
            assertThat(in.readInt()).isEqualTo(1);
        }
        assertThat(httpStatus(http, "/health/ready")).isEqualTo(200);

        // SIGTERM through the handle: Process.destroy() would also close our end of its stdout.
        process.toHandle().destroy();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("stopped within 30 s: %s", output).isTrue();
        await().atMost(Duration.ofSeconds(5)).alias("stopped: in the log " + output).until(() -> logContains("stopped:"));
        assertThat(portAccepts(redisPort)).as("the embedded redis-server stopped with the server").isFalse();
    }

    private void pumpOutput() {
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

    private boolean logContains(String text) {
        return output.stream().anyMatch(l -> l.contains(text));
    }

    private static String javaBin() {
        Path bin = Path.of(System.getProperty("java.home"), "bin", "java");
        return Files.isExecutable(bin) ? bin.toString() : "java";
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static boolean portAccepts(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int httpStatus(int port, String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL()
                .openConnection();
        try {
            return c.getResponseCode();
        } finally {
            c.disconnect();
        }
    }
}
