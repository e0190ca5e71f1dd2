package org.fleetpipe.teltonika.server.config;

import java.time.Duration;
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
 * @param deviceInfoTtlBeforeRecords        lifetime of device:info:{imei} until the device stored a record
 * @param deadLettersPerSecond              frames stored in dlq:frames per second, in all
 * @param deadLettersPerAddressPerMinute    ... per source address and minute
 * @param deadLetterUnauthenticatedBytes    raw bytes kept of a dead letter from UDP or before login
 * @param redisRequestQueueSize             Redis commands a connection may hold unanswered (Lettuce's
 *                                          request queue); past it a command fails at once
 * @param maxDeviceMessagesPerMinute        unsolicited Codec 12/13/14 messages stored per connection
 *                                          and minute
 * @param maxDeviceMessageTextBytes         characters of a device message's text that are stored
 * @param maxAcceptsPerSecond               connections accepted per second by this instance, all
 *                                          device listeners together; 0 = no cap
 * @param deviceRates                       what one device (IMEI) may send per second
 * @param deviceStreamShare                 share of the stream's budget one device may hold unread; 0 = off
 * @param maxHeldBytes                      bytes of held packets' records at once
 * @param maxAcceptsPerNetworkPerSecond     ... from one source network (/24, /64); more are closed at
 *                                          accept; 0 = no per-network share
 * @param udpAdmission                      which IMEIs may send over UDP in open admission mode
 * @param maxUdpRecordsPerSecond            records this instance stores from UDP per second, all
 *                                          sources together; 0 = no cap
 */
public record HostileClientLimits(
        int maxPreLoginConnections,
        int maxPreLoginConnectionsPerAddress,
        int maxNewImeisPerAddressPerMinute,
        Duration deviceInfoTtlBeforeRecords,
        int deadLettersPerSecond,
        int deadLettersPerAddressPerMinute,
        int deadLetterUnauthenticatedBytes,
        int redisRequestQueueSize,
        int maxDeviceMessagesPerMinute,
        int maxDeviceMessageTextBytes,
        int maxAcceptsPerSecond,
        DeviceRateSettings deviceRates,
        double deviceStreamShare,
        long maxHeldBytes,
        int maxAcceptsPerNetworkPerSecond,
        UdpAdmission udpAdmission,
        int maxUdpRecordsPerSecond) {
}
