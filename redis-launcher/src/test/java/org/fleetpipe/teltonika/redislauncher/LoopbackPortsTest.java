package org.fleetpipe.teltonika.redislauncher;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {

    @Test
    void free_isBelowTheEphemeralRangeAndBindable() throws Exception {
        int port = LoopbackPorts.free();
        assertThat(port).isBetween(LoopbackPorts.LOWEST, LoopbackPorts.HIGHEST);
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        }
    }

    @Test
    void freeWithOffset_leavesBothPortsInRange() {
        int port = LoopbackPorts.free(10_000);
        assertThat(port).isBetween(LoopbackPorts.LOWEST, LoopbackPorts.HIGHEST - 10_000);
    }

    @Test
    void aListeningPortIsNeverHandedOut() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), LoopbackPorts.free()));
            for (int i = 0; i < 2_000; i++) {
                assertThat(LoopbackPorts.free()).isNotEqualTo(taken.getLocalPort());
            }
        }
    }
}
