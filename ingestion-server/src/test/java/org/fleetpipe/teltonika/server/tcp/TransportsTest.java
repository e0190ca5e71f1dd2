package org.fleetpipe.teltonika.server.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TransportsTest {

    private static final Throwable MISSING_LIBDL = new UnsatisfiedLinkError(
            "/tmp/libnetty_transport_native_epoll_x86_64.so: libdl.so.2: cannot open shared object file");

    @Test
    void unexpectedFallback_linuxWithoutItsNativeLibrary_saysWhy() {
        assertThat(Transports.unexpectedFallback(false, "Linux", false, MISSING_LIBDL))
                .hasValue("UnsatisfiedLinkError: " + MISSING_LIBDL.getMessage());
    }

    @Test
    void unexpectedFallback_nothingToSay_whenEpollRuns_nioWasChosen_orTheHostIsNotLinux() {
        assertThat(Transports.unexpectedFallback(true, "Linux", false, null)).isEmpty();
        assertThat(Transports.unexpectedFallback(false, "Linux", true, MISSING_LIBDL)).isEmpty();
        assertThat(Transports.unexpectedFallback(false, "Mac OS X", false, MISSING_LIBDL)).isEmpty();
    }

    @Test
    void unexpectedFallback_onThisLinuxBuildMachine_isEmpty() {
        // CI runs on Linux with Netty's native jar on the class path: epoll must load there.
        assertThat(Transports.unexpectedFallback()).isEmpty();
    }
}
