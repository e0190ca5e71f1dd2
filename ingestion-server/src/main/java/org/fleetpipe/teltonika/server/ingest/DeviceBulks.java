package org.fleetpipe.teltonika.server.ingest;

import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.redis.RespArguments;

/**
 * A device's IMEI, its partition's stream, its info hash and its dedup keys as RESP bulk strings, encoded once per connection (kept by
 * its {@link ResendGuard}) instead of built as strings for every packet.
 */
record DeviceBulks(Imei imei, IngestKeys keys, byte[] imeiBulk, byte[] stream, byte[] info, byte[] recent,
                   byte[] previous) {

    static DeviceBulks of(Imei imei, IngestKeys keys) {
        String device = imei.value();
        return new DeviceBulks(imei, keys, RespArguments.preEncoded(device),
                RespArguments.preEncoded(keys.telemetryOf(device)), RespArguments.preEncoded(keys.deviceInfo(device)),
                RespArguments.preEncoded(keys.dedupRecent(device)), RespArguments.preEncoded(keys.dedupPrevious(device)));
    }

    boolean isFor(Imei other, IngestKeys otherKeys) {
        return keys == otherKeys && (imei == other || imei.equals(other));
    }
}
