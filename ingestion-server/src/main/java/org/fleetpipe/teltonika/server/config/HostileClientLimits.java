package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.fraction;
import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.longIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.oneOf;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;
import static org.fleetpipe.teltonika.server.config.SettingValues.refuse;
import static org.fleetpipe.teltonika.server.config.SettingValues.typed;

import com.typesafe.config.Config;
import java.time.Duration;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.server.admission.UdpAdmission;
import org.fleetpipe.teltonika.server.limits.DeviceRateSettings;

/**
 * The bounds that keep a host without credentials (or a misbehaving device) from hurting the other
 * devices or the shared Redis; SECURITY.md names the attack each one answers.
 *
 * @param maxPreLoginConnections            connections accepted and not logged in yet, in all
 * @param maxPreLoginConnectionsPerAddress  ... per source network (/24, /64); 0 = no per-network cap
 * @param maxNewImeisPerAddressPerMinute    IMEIs new to the fleet that one source network (/24, /64)
 *                                          may bring in per minute (open mode); 0 = no limit
 * @param maxNewImeisBurstPerAddress        ... at once (a cutover), refilled at the rate above
 * @param deviceInfoTtlBeforeRecords        lifetime of device:info:{imei} until the device stored a record
 * @param deadLettersPerSecond              frames stored in dlq:frames per second, in all
 * @param deadLettersPerAddressPerMinute    ... per source address and minute
 * @param deadLetterUnauthenticatedBytes    raw bytes kept of a dead letter from UDP or before login
 * @param redisRequestQueueSize             Redis commands a connection may hold unanswered (Lettuce's
 *                                          request queue); past it a command fails at once
 * @param maxDeviceMessagesPerMinute        unsolicited Codec 12/13/14/15 messages stored per connection
 *                                          and minute
 * @param maxDeviceMessageTextBytes         characters of a device message's text that are stored
 * @param maxAcceptsPerSecond               connections handed on per second by this instance, all
 *                                          device listeners together; more wait their turn; 0 = no cap
 * @param deviceRates                       what one device (IMEI) may send per second
 * @param fairShareFrom                     share of the stream's cap from which its room is divided fairly
 *                                          among networks and devices; 1 = never
 * @param maxHeldBytes                      bytes of held packets' records at once
 * @param maxAcceptsPerNetworkPerSecond     ... from one source network (/24, /64); more wait their
 *                                          turn; 0 = no per-network share
 * @param udpAdmission                      which IMEIs may send over UDP in open admission mode
 * @param maxUdpRecordsPerSecond            records this instance stores from UDP per second, all
 *                                          sources together; 0 = no cap
 * @param maxAcceptWaitingPerNetwork        accepted connections of one source network that may wait
 *                                          for their turn; more are closed at accept
 * @param maxAcceptWaiting                  accepted connections that may wait in all
 */
public record HostileClientLimits(
        int maxPreLoginConnections,
        int maxPreLoginConnectionsPerAddress,
        int maxNewImeisPerAddressPerMinute,
        int maxNewImeisBurstPerAddress,
        Duration deviceInfoTtlBeforeRecords,
        int deadLettersPerSecond,
        int deadLettersPerAddressPerMinute,
        int deadLetterUnauthenticatedBytes,
        int redisRequestQueueSize,
        int maxDeviceMessagesPerMinute,
        int maxDeviceMessageTextBytes,
        int maxAcceptsPerSecond,
        DeviceRateSettings deviceRates,
        double fairShareFrom,
        long maxHeldBytes,
        int maxAcceptsPerNetworkPerSecond,
        UdpAdmission udpAdmission,
        int maxUdpRecordsPerSecond,
        int maxAcceptWaitingPerNetwork,
        int maxAcceptWaiting) {

    static HostileClientLimits from(Config c, DecodeLimits decodeLimits) {
        return new HostileClientLimits(
                intIn(c, "limits.max-pre-login-connections", 1, 10_000_000),
                intIn(c, "limits.max-pre-login-connections-per-address", 0, 10_000_000),
                intIn(c, "limits.max-new-imeis-per-address-per-minute", 0, 10_000_000),
                newImeisBurst(c),
                positive(c, "registry.device-info-ttl-before-records"),
                intIn(c, "dead-letters.max-per-second", 1, 1_000_000),
                intIn(c, "dead-letters.max-per-address-per-minute", 1, 1_000_000),
                intIn(c, "dead-letters.max-unauthenticated-frame-bytes", 16, 16 * 1024 * 1024),
                intIn(c, "redis.request-queue-size", 100, Integer.MAX_VALUE),
                intIn(c, "limits.max-device-messages-per-minute", 1, 1_000_000),
                intIn(c, "limits.max-device-message-text-bytes", 16, 16 * 1024 * 1024),
                acceptsPerSecond(c),
                deviceRates(c, decodeLimits.maxFrameBytes()),
                fairShareFrom(c),
                heldBytes(c),
                intIn(c, "limits.max-accepts-per-network-per-second", 0, 10_000_000),
                UdpAdmission.of(oneOf(c, "admission.udp", UdpAdmission.TCP_KNOWN.label(),
                        UdpAdmission.TCP_NETWORK.label(), UdpAdmission.ANY.label())),
                udpRecordsPerSecond(c, decodeLimits),
                intIn(c, "limits.max-accept-waiting-per-network", 0, 1_000_000),
                intIn(c, "limits.max-accept-waiting", 1, 1_000_000));
    }

    private static DeviceRateSettings deviceRates(Config c, int maxFrameBytes) {
        int records = intIn(c, "limits.device-records-per-second", 0, 10_000_000);
        int recordsBurst = intIn(c, "limits.device-records-burst", 1, 100_000_000);
        int bytes = intIn(c, "limits.device-bytes-per-second", 0, 1_000_000_000);
        int bytesBurst = intIn(c, "limits.device-bytes-burst", 1, 1_000_000_000);
        // A datagram is taken whole or dropped: a burst below one packet would drop it forever.
        if (records > 0 && recordsBurst < 255) {
            throw refuse(c, "limits.device-records-burst", "must be at least 255 (a whole packet), got " + recordsBurst);
        }
        if (bytes > 0 && bytesBurst < maxFrameBytes) {
            throw refuse(c, "limits.device-bytes-burst", "must be at least " + typed(c, "limits.max-frame-bytes")
                    + ", " + maxFrameBytes + ", got " + bytesBurst);
        }
        return new DeviceRateSettings(records, recordsBurst, bytes, bytesBurst);
    }

    private static int newImeisBurst(Config c) {
        int burst = intIn(c, "limits.max-new-imeis-burst-per-address", 1, 10_000_000);
        int perMinute = intIn(c, "limits.max-new-imeis-per-address-per-minute", 0, 10_000_000);
        if (burst < perMinute) {
            throw refuse(c, "limits.max-new-imeis-burst-per-address", "must not be less than "
                    + typed(c, "limits.max-new-imeis-per-address-per-minute") + ", " + perMinute + ", got " + burst);
        }
        return burst;
    }

    private static double fairShareFrom(Config c) {
        double from = fraction(c, "telemetry.backpressure.fair-share-from");
        if (from < 0.1) {
            // Below it the shares would hold devices while the stream is nearly empty.
            throw refuse(c, "telemetry.backpressure.fair-share-from", "must be at least 0.1 (1 = never), got " + from);
        }
        return from;
    }

    private static long heldBytes(Config c) {
        long bytes = longIn(c, "telemetry.backpressure.max-held-bytes", 0, Long.MAX_VALUE);
        return bytes > 0 ? bytes : Runtime.getRuntime().maxMemory() / 8;
    }

    private static int udpRecordsPerSecond(Config c, DecodeLimits decodeLimits) {
        int perSecond = intIn(c, "limits.max-udp-records-per-second", 0, 100_000_000);
        if (perSecond > 0 && perSecond < decodeLimits.maxRecords()) {
            // A packet's records are taken from the budget at once: a smaller one would refuse a full packet forever.
            throw refuse(c, "limits.max-udp-records-per-second", "must be 0 (no cap) or at least "
                    + typed(c, "limits.max-records-per-packet"));
        }
        return perSecond;
    }

    private static int acceptsPerSecond(Config c) {
        int perSecond = intIn(c, "limits.max-accepts-per-second", 0, 10_000_000);
        if (perSecond > 0 && perSecond < 10) {
            throw refuse(c, "limits.max-accepts-per-second", "must be 0 (no cap) or at least 10, got " + perSecond);
        }
        return perSecond;
    }
}
