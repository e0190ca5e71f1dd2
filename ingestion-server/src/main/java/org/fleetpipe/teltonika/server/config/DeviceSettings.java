package org.fleetpipe.teltonika.server.config;

import static org.fleetpipe.teltonika.server.config.SettingValues.bool;
import static org.fleetpipe.teltonika.server.config.SettingValues.intIn;
import static org.fleetpipe.teltonika.server.config.SettingValues.oneOf;
import static org.fleetpipe.teltonika.server.config.SettingValues.positive;

import com.typesafe.config.Config;
import java.time.Duration;
import org.fleetpipe.teltonika.codec.DecodeLimits;
import org.fleetpipe.teltonika.server.admission.AdmissionMode;
import org.fleetpipe.teltonika.server.capture.CaptureSettings;

/**
 * What a device connection may do: who may log in, how much it may send, how long it may take.
 *
 * @param denySweepInterval how often the IMEIs held here are checked against devices:denied (and the
 *                          allow-list), for a message that was lost
 * @param maxQueuedFrames   frames a device may send ahead while its previous packet is written
 * @param maxUdpInFlight    datagrams written at once before the UDP socket stops reading
 * @param frameTimeout      a frame begun after the login must be whole within this, else it is dead-lettered
 *                          and the connection closed
 * @param deviceInfoTtl     lifetime of device:info:{imei} once the device stored records
 * @param hostile           the bounds against hosts without credentials and misbehaving devices
 * @param capture           the bounds of the support captures
 * @param warmUp            the synthetic devices sent through the pipeline before the listeners open
 */
public record DeviceSettings(boolean imeiLuhnCheck, AdmissionMode admission, Duration refusalLogInterval,
                             Duration denySweepInterval, int maxConnections, int maxConnectionsPerAddress,
                             int maxNewConnectionsPerAddressPerSecond, DecodeLimits decodeLimits,
                             int maxQueuedFrames, int maxUdpInFlight, Duration loginTimeout,
                             Duration readIdleTimeout, Duration frameTimeout, Duration deviceInfoTtl,
                             HostileClientLimits hostile, CaptureSettings capture, WarmUpSettings warmUp) {

    static DeviceSettings from(Config c) {
        DecodeLimits limits = decodeLimits(c);
        return new DeviceSettings(bool(c, "imei-luhn-check"),
                AdmissionMode.of(oneOf(c, "admission.mode", AdmissionMode.OPEN.label(),
                        AdmissionMode.ALLOW_LIST.label())),
                positive(c, "admission.refusal-log-interval"),
                positive(c, "admission.deny-sweep-interval"),
                maxConnections(c, Runtime.getRuntime().maxMemory()),
                intIn(c, "limits.max-connections-per-address", 0, 10_000_000),
                intIn(c, "limits.max-new-connections-per-address-per-second", 0, 10_000_000),
                limits,
                intIn(c, "limits.max-queued-frames", 1, 4096),
                intIn(c, "limits.max-udp-in-flight", 1, 1_000_000),
                positive(c, "timeouts.login"),
                positive(c, "timeouts.read-idle"),
                positive(c, "timeouts.frame"),
                positive(c, "registry.device-info-ttl"),
                HostileClientLimits.from(c, limits),
                new CaptureSettings(positive(c, "capture.max-duration"), intIn(c, "capture.max-captures", 1, 100_000),
                        positive(c, "capture.retention"),
                        SettingValues.longIn(c, "capture.max-bytes", 4096, 1L << 30)),
                WarmUpSettings.from(c));
    }

    /** {@code auto}: what this JVM's heap holds (ConnectionBudget); a number must fit the same budget. */
    static int maxConnections(Config c, long maxHeapBytes) {
        String key = "limits.max-connections";
        if (SettingValues.string(c, key).trim().equalsIgnoreCase("auto")) {
            return ConnectionBudget.auto(maxHeapBytes);
        }
        int wanted = intIn(c, key, 1, 10_000_000);
        int fitting = ConnectionBudget.fitting(maxHeapBytes);
        if (wanted > fitting) {
            throw SettingValues.refuse(c, key, wanted + " connections need about "
                    + (long) wanted * ConnectionBudget.BYTES_PER_CONNECTION * 2 / (1024 * 1024) + " MiB of heap ("
                    + ConnectionBudget.BYTES_PER_CONNECTION / 1024 + " KiB each, in half the heap), and this JVM has "
                    + maxHeapBytes / (1024 * 1024) + " MiB: at most " + fitting + " here; give the JVM more heap"
                    + " (-Xmx, -XX:MaxRAMPercentage), add replicas, or use auto");
        }
        return wanted;
    }

    private static DecodeLimits decodeLimits(Config c) {
        try {
            return new DecodeLimits(
                    intIn(c, "limits.max-frame-bytes", 45, 16 * 1024 * 1024),
                    intIn(c, "limits.max-records-per-packet", 1, 255),
                    intIn(c, "limits.max-io-per-record", 0, 65535),
                    intIn(c, "limits.max-variable-io-bytes", 0, 65535),
                    DecodeLimits.DEFAULTS.maxLoginBytes());
        } catch (IllegalArgumentException e) {
            throw new SettingsException(SettingValues.ROOT + ".limits: " + e.getMessage(), e);
        }
    }
}
