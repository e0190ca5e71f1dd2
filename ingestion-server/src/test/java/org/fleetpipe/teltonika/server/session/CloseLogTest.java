package org.fleetpipe.teltonika.server.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class CloseLogTest {

    private final Logger logger = (Logger) LoggerFactory.getLogger("CloseLogTest");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();

    @BeforeEach
    void capture() {
        lines.start();
        logger.addAppender(lines);
    }

    @AfterEach
    void release() {
        logger.detachAppender(lines);
        loop.shutdownNow();
    }

    private List<String> messages() {
        synchronized (lines) {
            return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    @Test
    void closing_whenAReasonFloods_thenItsLinesCappedPerInterval_theRestSummedUp_otherReasonsUntouched() {
        CloseLog log = new CloseLog(logger, 3, Duration.ofSeconds(2));

        for (int i = 0; i < 25; i++) {
            log.closing(loop, DisconnectReason.LOGIN_TIMEOUT, "closing device connection n={} reason={}", i,
                    "login-timeout");
        }
        log.closing(loop, DisconnectReason.IDLE_TIMEOUT, "closing device connection n={} reason={}", 0, "idle-timeout");

        assertThat(messages()).containsExactly(
                "closing device connection n=0 reason=login-timeout",
                "closing device connection n=1 reason=login-timeout",
                "closing device connection n=2 reason=login-timeout",
                "closing device connection n=0 reason=idle-timeout");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(messages()).hasSize(5));
        assertThat(messages().get(4)).startsWith("closed 22 more device connection(s) with reason=login-timeout"
                + " without a line each (at most 3 lines per reason every 2 s;");

        // A new interval: lines again, and no second summary for what was already summed up.
        log.closing(loop, DisconnectReason.LOGIN_TIMEOUT, "closing device connection n={} reason={}", 25,
                "login-timeout");
        assertThat(messages()).hasSize(6).last().isEqualTo("closing device connection n=25 reason=login-timeout");
    }
}
