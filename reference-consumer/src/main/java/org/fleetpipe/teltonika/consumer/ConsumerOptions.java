package org.fleetpipe.teltonika.consumer;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;

/**
 * The command line of the reference consumer.
 *
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
 */
public record ConsumerOptions(String redisUrl, String stream, String group, String consumer, String from, int count,
                              Duration block, Duration claimIdle, Duration progress, Duration untilIdle,
                              Duration duration, long maxEntries, boolean jsonLines, int maxDeliveries,
                              String deadLetterStream) {

    static final String USAGE = """
            usage: java -jar reference-consumer.jar [options]
              --redis-url URL      Redis of the ingestion server (default: $REDIS_URL, else redis://127.0.0.1:6379)
              --stream NAME        stream to read (default telemetry; put REDIS_NAMESPACE in front if the server has one)
              --group NAME         consumer group, created if missing (default reference)
              --consumer NAME      this consumer's name within the group, the same after a restart (default: the hostname)
              --from 0|$           where a new group starts: 0 = everything still in the stream (default), $ = new entries only
              --count N            entries per XREADGROUP (default 500)
              --block DURATION     how long one XREADGROUP waits for new entries (default 2s)
              --claim-idle DURATION take over entries another consumer left unacknowledged this long (default 60s)
              --progress DURATION  progress line period, 0 = none (default 5s)
              --until-idle DURATION stop when nothing new arrived for this long (default: never)
              --duration DURATION  stop after this long (default: never)
              --max-entries N      stop after this many entries (default: never)
              --output progress|jsonl  jsonl: every entry as a JSON line on stdout (default progress)
              --max-deliveries N   an entry the handler failed on after N deliveries is dead-lettered and acknowledged (default 5)
              --dead-letter-stream NAME  where such entries go (default dlq:consumer:<group>; put REDIS_NAMESPACE in front if the server has one)
            Durations: 500ms, 2s, 5m, 1h.""";

    /** Parses {@code args}; {@code env} supplies REDIS_URL. */
    public static ConsumerOptions parse(String[] args, Map<String, String> env) {
        String redisUrl = env.getOrDefault("REDIS_URL", "redis://127.0.0.1:6379");
        String stream = "telemetry";
        String group = "reference";
        String consumer = defaultConsumerName();
        String from = "0";
        int count = 500;
        Duration block = Duration.ofSeconds(2);
        Duration claimIdle = Duration.ofSeconds(60);
        Duration progress = Duration.ofSeconds(5);
        Duration untilIdle = Duration.ZERO;
        Duration duration = Duration.ZERO;
        long maxEntries = 0;
        boolean jsonLines = false;
        int maxDeliveries = 5;
        String deadLetterStream = null;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("--help") || name.equals("-h")) {
                throw new IllegalArgumentException(USAGE);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value\n" + USAGE);
            }
            String value = args[++i];
            switch (name) {
                case "--redis-url" -> redisUrl = value;
                case "--stream" -> stream = value;
                case "--group" -> group = value;
                case "--consumer" -> consumer = value;
                case "--from" -> {
                    if (!value.equals("0") && !value.equals("$")) {
                        throw new IllegalArgumentException("--from must be 0 or $, got " + value);
                    }
                    from = value;
                }
                case "--count" -> count = (int) positive(name, value, 100_000);
                case "--block" -> block = duration(name, value);
                case "--claim-idle" -> claimIdle = duration(name, value);
                case "--progress" -> progress = duration(name, value);
                case "--until-idle" -> untilIdle = duration(name, value);
                case "--duration" -> duration = duration(name, value);
                case "--max-entries" -> maxEntries = positive(name, value, Long.MAX_VALUE);
                case "--max-deliveries" -> maxDeliveries = (int) positive(name, value, 1_000);
                case "--dead-letter-stream" -> deadLetterStream = value;
                case "--output" -> {
                    if (!value.equals("progress") && !value.equals("jsonl")) {
                        throw new IllegalArgumentException("--output must be progress or jsonl, got " + value);
                    }
                    jsonLines = value.equals("jsonl");
                }
                default -> throw new IllegalArgumentException("unknown option " + name + "\n" + USAGE);
            }
        }
        if (block.isZero()) {
            // BLOCK 0 waits forever: the consumer would never get to reclaim or to stop.
            throw new IllegalArgumentException("--block must be more than 0");
        }
        if (deadLetterStream == null) {
            deadLetterStream = "dlq:consumer:" + group;
        }
        if (deadLetterStream.equals(stream)) {
            throw new IllegalArgumentException("--dead-letter-stream must not be the stream read (" + stream + ")");
        }
        return new ConsumerOptions(redisUrl, stream, group, consumer, from, count, block, claimIdle, progress,
                untilIdle, duration, maxEntries, jsonLines, maxDeliveries, deadLetterStream);
    }

    private static long positive(String name, String value, long max) {
        try {
            long n = Long.parseLong(value);
            if (n >= 1 && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(name + " must be a whole number from 1 to " + max + ", got " + value);
    }

    /** {@code 500ms}, {@code 2s}, {@code 5m}, {@code 1h}, or {@code 0}. */
    static Duration duration(String name, String value) {
        try {
            if (value.equals("0")) {
                return Duration.ZERO;
            }
            if (value.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(value.substring(0, value.length() - 2)));
            }
            long n = Long.parseLong(value.substring(0, value.length() - 1));
            switch (value.charAt(value.length() - 1)) {
                case 's':
                    return Duration.ofSeconds(n);
                case 'm':
                    return Duration.ofMinutes(n);
                case 'h':
                    return Duration.ofHours(n);
                default:
                    break;
            }
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            // below
        }
        throw new IllegalArgumentException(name + " must be a duration such as 500ms, 2s, 5m or 1h, got " + value);
    }

    /**
     * The hostname: stable across restarts of a pod with a fixed name (a StatefulSet), so a
     * restarted consumer finds its own pending entries again; give --consumer to run several on one host.
     */
    private static String defaultConsumerName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "consumer";
        }
    }
}
