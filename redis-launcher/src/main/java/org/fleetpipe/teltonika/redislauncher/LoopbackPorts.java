package org.fleetpipe.teltonika.redislauncher;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** Free loopback ports for child processes, chosen where outgoing connections never land. */
public final class LoopbackPorts {

    /*
     * A port from new ServerSocket(0) comes from the kernel's ephemeral range (32768-60999 on Linux),
     * the same range every outgoing connection takes its source port from. Between "found free" and
     * the child's bind, any client connection of the test (a Redis replica, Lettuce, a sentinel) may
     * take it: a CI run lost a server to "Address already in use" that way. Below the range only
     * listeners compete, and each is checked before it is handed out.
     */
    static final int LOWEST = 10_000;
    static final int HIGHEST = 32_767;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private LoopbackPorts() {
    }

    /** A port in 10000..32767 that nothing listens on right now. */
    public static int free() {
        return free(0);
    }

    /** A port p in 10000..32767 - offset such that p and p + offset are both free (a cluster node and its bus). */
    public static int free(int offset) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 500; attempt++) {
            int port = random.nextInt(LOWEST, HIGHEST - offset + 1);
            if (bindable(port) && (offset == 0 || bindable(port + offset))) {
                return port;
            }
        }
        throw new IllegalStateException("found no free port in " + LOWEST + ".." + (HIGHEST - offset)
                + (offset == 0 ? "" : " with p+" + offset + " free") + " on " + LOOPBACK);
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(LOOPBACK, port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
