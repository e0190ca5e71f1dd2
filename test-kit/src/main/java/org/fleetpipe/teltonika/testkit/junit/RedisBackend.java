package org.fleetpipe.teltonika.testkit.junit;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** One way of having a Redis: external, container or local process. */
interface RedisBackend extends AutoCloseable {

    String uri();

    int port();

    boolean isRunning();

    void stop();

    void start();

    String description();

    /** SIGSTOP: the Redis keeps its data and port but answers nothing until {@link #thaw()}. */
    default void freeze() {
        throw new IllegalStateException("cannot freeze " + description());
    }

    default void thaw() {
        throw new IllegalStateException("cannot thaw " + description());
    }

    default boolean frozen() {
        return false;
    }

    @Override
    void close();

    /** Whether something on host:port answers PING with any RESP reply (an auth error still means "up"). */
    static boolean answers(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 250);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            int first = socket.getInputStream().read();
            return first == '+' || first == '-';
        } catch (IOException e) {
            return false;
        }
    }

    // Plain polling: the fixture ships in the test-kit and must not require Awaitility from its users.
    static void await(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout.toMillis() + " ms waiting until " + what);
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting until " + what, e);
            }
        }
    }
}
