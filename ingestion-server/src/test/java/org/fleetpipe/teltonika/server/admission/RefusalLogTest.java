package org.fleetpipe.teltonika.server.admission;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class RefusalLogTest {

    @Test
    void refused_whenOneHostRetriesFromNewPorts_thenOneLinePerAddressAndInterval() {
        Logger logger = (Logger) LoggerFactory.getLogger(RefusalLog.class);
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        try {
            RefusalLog log = new RefusalLog(Duration.ofMinutes(1));
            for (int port = 40_000; port < 40_050; port++) {
                InetSocketAddress remote = new InetSocketAddress("127.0.0.5", port);
                log.refused("malformed/" + RefusalLog.addressKey(remote), "login refused remote={}", remote);
            }
            log.refused("malformed/" + RefusalLog.addressKey(new InetSocketAddress("127.0.0.6", 40_000)),
                    "login refused remote={}", "127.0.0.6");

            assertThat(lines.list).extracting(ILoggingEvent::getFormattedMessage)
                    .containsExactly("login refused remote=/127.0.0.5:40000", "login refused remote=127.0.0.6");
            assertThat(RefusalLog.addressKey(new InetSocketAddress("127.0.0.5", 1))).isEqualTo("127.0.0.5");
        } finally {
            logger.detachAppender(lines);
        }
    }
}
