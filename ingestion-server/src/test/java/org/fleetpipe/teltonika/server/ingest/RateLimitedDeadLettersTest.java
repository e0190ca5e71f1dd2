package org.fleetpipe.teltonika.server.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;
import org.fleetpipe.teltonika.server.testing.RecordingDeadLetters;
import org.fleetpipe.teltonika.server.testing.TestImeis;
import org.junit.jupiter.api.Test;

/** The dead-letter sample: a spoofed flood cannot crowd out the logged-in devices' letters. */
class RateLimitedDeadLettersTest {

    private final RecordingDeadLetters stored = new RecordingDeadLetters();
    private final RateLimitedDeadLetters letters = new RateLimitedDeadLetters(stored, 10, 12, IngestionMetrics.noop());

    private static InetAddress address(int i) throws UnknownHostException {
        return InetAddress.getByAddress(new byte[] {10, (byte) (i >> 16), (byte) (i >> 8), (byte) i});
    }

    @Test
    void spoofedFloodFromManyAddresses_thenLoggedInDevicesStillGetTheirOwnBudget() throws Exception {
        ByteBuf bytes = Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
        try {
            for (int i = 0; i < 1_000; i++) {
                letters.record(FrameOrigin.unauthenticated(address(i), null), "bad-preamble", "spoofed", bytes);
            }
            for (int i = 0; i < 5; i++) {
                letters.record(FrameOrigin.loggedIn(address(100_000 + i), TestImeis.WIKI), "bad-crc", "device",
                        bytes);
            }
        } finally {
            bytes.release();
        }

        // The bucket refills over the test's few milliseconds: a token or two more at most.
        assertThat(stored.letters()).filteredOn(l -> !l.origin().loggedIn()).hasSizeBetween(10, 12);
        assertThat(stored.letters()).filteredOn(l -> l.origin().loggedIn()).hasSize(5);
    }
}
