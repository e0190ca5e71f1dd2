package org.fleetpipe.teltonika.consumer;

import java.time.Duration;

/**
 * The reference consumer's settings, as its command line ({@link ConsumerCommand}) gave them.
 *
 * @param stream    the servers' telemetry stream ({@code telemetry}, with their namespace in front); with
 *                  partitions the name the partition streams {@code <stream>:{p}} and the layout key
 *                  {@code <stream>:partitions} are made from
 * @param partitions how many partition streams to read; 0 = as the layout key says (absent: 1)
 * @param from      where a group that does not exist yet starts: {@code 0} (everything the stream
 *                  still holds) or {@code $} (only what arrives from now on)
 * @param claimIdle an entry another consumer was delivered this long ago and never acknowledged is
 *                  taken over (XAUTOCLAIM): that consumer is presumed dead
 * @param untilIdle stop once nothing new arrived for this long (0 = never)
 * @param duration  stop after this long (0 = never)
 * @param maxEntries stop after this many entries (0 = never)
 * @param jsonLines print every entry as one JSON object per line on stdout (progress goes to stderr)
 * @param maxDeliveries an entry the handler failed on after the group delivered it this often is
 *                  moved to {@code deadLetterStream} and acknowledged
 * @param deadLetterStream where such entries go (default {@code dlq:consumer:<group>})
 * @param modelsHash the hash IMEI to device model that {@code jsonLines} names IO elements by
 */
public record ConsumerOptions(String redisUrl, String stream, int partitions, String group, String consumer,
                              String from, int count, Duration block, Duration claimIdle, Duration progress,
                              Duration untilIdle, Duration duration, long maxEntries, boolean jsonLines, int maxDeliveries,
                              String deadLetterStream, String modelsHash) {

    /**
     * Parses {@code args} (picocli, {@link ConsumerCommand}); REDIS_URL in the environment is the default Redis.
     *
     * @throws picocli.CommandLine.ParameterException naming the option and what it expects
     */
    public static ConsumerOptions parse(String... args) {
        return ConsumerCommand.parse(args);
    }
}
