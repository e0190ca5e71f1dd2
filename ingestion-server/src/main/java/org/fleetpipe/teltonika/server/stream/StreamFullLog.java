package org.fleetpipe.teltonika.server.stream;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log lines of a full stream: when a partition fills and clears, and a reminder while any
 * stays full. Logged under {@link TelemetryBackpressure}'s name, where operators look for them.
 */
final class StreamFullLog {

    private static final Logger LOG = LoggerFactory.getLogger(TelemetryBackpressure.class);

    private final StreamRetentionSettings settings;
    private final StreamRetentionSettings partitionSettings;
    private final int partitions;

    StreamFullLog(StreamRetentionSettings settings, StreamRetentionSettings partitionSettings, int partitions) {
        this.settings = settings;
        this.partitionSettings = partitionSettings;
        this.partitions = partitions;
    }

    void filled(int partition, StreamSnapshot stream) {
        LOG.warn("telemetry stream full{}: {}; {}; packets are not acknowledged (devices keep their records) "
                + "until the consumers catch up", where(partition), state(stream, partitionSettings), slowest(stream));
    }

    void cleared(int partition, StreamSnapshot stream, long fullSeconds, int held) {
        LOG.info("telemetry stream no longer full{}: {}; acknowledging again after {} s; writing {} held packets",
                where(partition), state(stream, partitionSettings), fullSeconds, partitions == 1 ? held : "its");
    }

    void stillFull(long fullSeconds, List<Integer> fullOnes, StreamSnapshot combined, int held) {
        LOG.warn("telemetry stream still full for {} s{}: {}; {}; {} packets held", fullSeconds,
                partitions == 1 ? "" : " (partitions " + fullOnes + " of " + partitions + ")",
                state(combined, settings), slowest(combined), held);
    }

    /** Which partition a log line is about; nothing with one partition. */
    private String where(int partition) {
        return partitions == 1 ? "" : " (partition " + partition + " of " + partitions + ")";
    }

    private String state(StreamSnapshot stream, StreamRetentionSettings caps) {
        String memory = stream.maxMemory() > 0 ? String.format(", Redis memory %.0f %% of maxmemory (stop at %.0f %%, "
                + "TELEMETRY_MAX_REDIS_MEMORY)", 100 * stream.memoryFraction(), 100 * caps.maxRedisMemory()) : "";
        return caps.measure(stream) + " entries the consumer groups still need, cap " + caps.maxUnread()
                + (caps == settings || partitions == 1 ? " (TELEMETRY_MAX_UNREAD)"
                : " (TELEMETRY_MAX_UNREAD / TELEMETRY_PARTITIONS)") + memory;
    }

    /** The group with the most entries it still needs. */
    private static String slowest(StreamSnapshot stream) {
        long now = System.currentTimeMillis();
        GroupPosition slowest = null;
        for (GroupPosition g : stream.groups()) {
            if (slowest == null || g.lag(stream) + g.pending() > slowest.lag(stream) + slowest.pending()) {
                slowest = g;
            }
        }
        return slowest == null ? "no group" : "slowest group '" + slowest.name() + "': " + slowest.lag(stream)
                + " undelivered (oldest " + slowest.oldestUndeliveredAgeMs(now) / 1000 + " s), " + slowest.pending()
                + " pending (oldest " + slowest.oldestPendingAgeMs(now) / 1000 + " s)";
    }
}
