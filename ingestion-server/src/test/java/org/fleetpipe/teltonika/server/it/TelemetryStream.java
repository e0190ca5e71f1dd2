package org.fleetpipe.teltonika.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.Range;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.testkit.junit.RedisFixture;
import org.fleetpipe.teltonika.server.testing.ExpectedEntries;

/** Reads what the server stored, with a connection of the test's own. */
final class TelemetryStream implements AutoCloseable {

    private final StatefulRedisConnection<String, String> connection;

    TelemetryStream(RedisFixture redis) {
        this.connection = redis.client().connect();
    }

    RedisCommands<String, String> redis() {
        return connection.sync();
    }

    /** Every entry body of the telemetry stream, oldest first, fields in stored order. */
    List<Map<String, String>> entries() {
        return redis().xrange("telemetry", Range.create("-", "+")).stream().map(StreamMessage::getBody).toList();
    }

    List<ScoredValue<String>> frameDeadLetters() {
        return redis().zrangeWithScores("dlq:frames", 0, -1);
    }

    /**
     * Every contract field with the value the device sent, in contract order, and {@code rx}
     * inside the time the packet was in flight.
     */
    static void assertStored(List<Map<String, String>> stored, List<Map<String, String>> expected,
                             long sentAt, long ackedAt) {
        assertStored("", stored, expected, sentAt, ackedAt);
    }

    /** As above; {@code context} (such as a random seed) prefixes every failure message. */
    static void assertStored(String context, List<Map<String, String>> stored, List<Map<String, String>> expected,
                             long sentAt, long ackedAt) {
        assertThat(stored).as("%s entries", context).hasSameSizeAs(expected);
        for (int i = 0; i < stored.size(); i++) {
            Map<String, String> entry = stored.get(i);
            assertThat(entry.keySet()).as("%s fields of entry %d", context, i)
                    .containsExactlyElementsOf(ExpectedEntries.fieldOrder(expected.get(i).containsKey("gen")));
            assertThat(Long.parseLong(entry.get("rx"))).as("%s rx of entry %d", context, i).isBetween(sentAt, ackedAt);
        }
        assertThat(stored).as("%s entries", context).map(ExpectedEntries::comparable).containsExactlyElementsOf(expected);
    }

    @Override
    public void close() {
        connection.close();
    }
}
