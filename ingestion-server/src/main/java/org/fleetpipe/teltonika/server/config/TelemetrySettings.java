package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.fraction;
import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.longIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.notNegative;
import static org.fleetpipe.teltonika.server.config.SettingValues.oneOf;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;
import static org.fleetpipe.teltonika.server.config.SettingValues.refuse;
import static org.fleetpipe.teltonika.server.config.SettingValues.typed;

import com.typesafe.config.Config;
import java.time.Duration;
import org.fleetpipe.teltonika.payload.TelemetryLayout;
import org.fleetpipe.teltonika.server.stream.RetentionMode;
import org.fleetpipe.teltonika.server.stream.StreamRetentionSettings;

/**
 * How records are written to the telemetry stream, kept in it, and how bad frames are kept.
 *
 * @param dedupWindow            a record resent within this window is not stored again; 0 = off
 * @param ackReplicas            replicas that must hold a packet's records before its ACK
 * @param dedupPerDevice         record identities per device before the recent set rolls over
 * @param transactionWrites      MULTI blocks on a connection per event loop (else the script alone)
 * @param deadLetterMaxEntries   entries dlq:frames keeps
 * @param deadLetterMaxFrameBytes raw bytes kept of a dead-lettered frame
 * @param clockSkewFuture        a record stamped more than this after its receipt is stored with valid=0
 * @param partitions             streams the telemetry is split into by device (TELEMETRY.md, "Partitions")
 * @param blockLinger            a MULTI block that is not full waits this long from its first packet for more
 */
public record TelemetrySettings(StreamRetentionSettings retention, Duration dedupWindow, int ackReplicas,
                                Duration ackReplicasTimeout, int dedupPerDevice, boolean transactionWrites,
                                int deadLetterMaxEntries, int deadLetterMaxFrameBytes, Duration clockSkewFuture,
                                int partitions, Duration blockLinger) {

    static TelemetrySettings from(Config c) {
        return new TelemetrySettings(retention(c),
                notNegative(c, "telemetry.dedup-window"),
                intIn(c, "telemetry.ack-replicas", 0, 100),
                positive(c, "telemetry.ack-replicas-timeout"),
                intIn(c, "telemetry.dedup-per-device", 1, 100_000),
                oneOf(c, "telemetry.write-path", "transaction", "script").equals("transaction"),
                intIn(c, "dead-letters.max-entries", 1, 10_000_000),
                intIn(c, "dead-letters.max-frame-bytes", 16, 16 * 1024 * 1024),
                clockSkewFuture(c),
                intIn(c, "telemetry.partitions", 1, TelemetryLayout.MAX_PARTITIONS),
                blockLinger(c));
    }

    private static Duration blockLinger(Config c) {
        Duration linger = notNegative(c, "telemetry.block-linger");
        if (linger.compareTo(Duration.ofMillis(50)) > 0) {
            // Every ACK of the block waits that long: beyond a few milliseconds it buys Redis nothing.
            throw refuse(c, "telemetry.block-linger", "must be at most 50ms");
        }
        return linger;
    }

    private static Duration clockSkewFuture(Config c) {
        Duration skew = notNegative(c, "telemetry.clock-skew-future");
        if (skew.compareTo(Duration.ofDays(30)) > 0) {
            throw refuse(c, "telemetry.clock-skew-future", "must be at most 30d");
        }
        return skew;
    }

    private static StreamRetentionSettings retention(Config c) {
        RetentionMode mode = RetentionMode.of(oneOf(c, "telemetry.retention.mode", RetentionMode.ACKNOWLEDGED.label(),
                RetentionMode.DELIVERED.label()));
        Duration degraded = positive(c, "telemetry.health.lag-degraded-age");
        Duration unhealthy = positive(c, "telemetry.health.lag-unhealthy-age");
        if (unhealthy.compareTo(degraded) < 0) {
            throw refuse(c, "telemetry.health.lag-unhealthy-age", "must not be less than "
                    + typed(c, "telemetry.health.lag-degraded-age"));
        }
        long maxUnread = longIn(c, "telemetry.max-unread", 0, Long.MAX_VALUE);
        if (maxUnread > 0 && maxUnread < 100) {
            // Acknowledging resumes below 90 % of the cap: a tiny cap would stop ingestion on every pass.
            throw refuse(c, "telemetry.max-unread", "must be 0 (no cap) or at least 100");
        }
        Duration interval = positive(c, "telemetry.retention.interval");
        Duration maxHold = positive(c, "telemetry.backpressure.max-hold");
        if (maxHold.compareTo(interval.multipliedBy(2)) < 0) {
            // Held packets are released and expired by the retention pass.
            throw refuse(c, "telemetry.backpressure.max-hold", "must be at least twice "
                    + typed(c, "telemetry.retention.interval"));
        }
        return new StreamRetentionSettings(longIn(c, "telemetry.stream-max-len", 0, Long.MAX_VALUE), mode,
                notNegative(c, "telemetry.retention.min-age"), interval, maxUnread,
                fraction(c, "telemetry.backpressure.max-redis-memory"), maxHold,
                longIn(c, "telemetry.backpressure.max-held-records", 1, Long.MAX_VALUE),
                fraction(c, "telemetry.health.degraded-fraction"), degraded, unhealthy);
    }
}
