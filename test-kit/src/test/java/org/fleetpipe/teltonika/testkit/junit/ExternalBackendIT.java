package org.fleetpipe.teltonika.testkit.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.fleetpipe.teltonika.redislauncher.LocalRedisServer;
import org.junit.jupiter.api.Test;

class ExternalBackendIT {

    @Test
    void stopAndStart_whenRedisComesFromRedisUrl_thenRefusedWithTheReason() {
        try (LocalRedisServer server = LocalRedisServer.builder().build().start()) {
            ExternalBackend external = new ExternalBackend(server.uri());

            assertThat(external.isRunning()).isTrue();
            assertThat(external.port()).isEqualTo(server.port());
            assertThatThrownBy(external::stop)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("REDIS_URL=" + server.uri())
                    .hasMessageContaining("external");
            assertThatThrownBy(external::start).isInstanceOf(IllegalStateException.class);
            assertThat(server.isRunning()).isTrue();
        }
    }

    @Test
    void isRunning_whenNothingListens_thenFalse() {
        LocalRedisServer stopped = LocalRedisServer.builder().build();

        assertThat(new ExternalBackend(stopped.uri()).isRunning()).isFalse();
    }
}
