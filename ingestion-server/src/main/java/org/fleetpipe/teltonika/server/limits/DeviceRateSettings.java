package org.fleetpipe.teltonika.server.limits;

/**
 * What one device (IMEI) may send per second, over all its connections and datagrams on an
 * instance; 0 in a rate turns that budget off.
 *
 * @param recordsPerSecond records refilled per second
 * @param recordsBurst     records at once: a tracker's offline backlog flushed in one go
 * @param bytesPerSecond   frame bytes refilled per second
 * @param bytesBurst       frame bytes at once
 */
public record DeviceRateSettings(int recordsPerSecond, int recordsBurst, int bytesPerSecond, int bytesBurst) {

    public static final DeviceRateSettings OFF = new DeviceRateSettings(0, 0, 0, 0);

    public boolean enabled() {
        return recordsPerSecond > 0 || bytesPerSecond > 0;
    }
}
