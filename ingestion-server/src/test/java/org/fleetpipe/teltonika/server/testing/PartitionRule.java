package org.fleetpipe.teltonika.server.testing;

import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The partition rule TELEMETRY.md documents for consumers, written out here rather than taken
 * from the server, so the tests check the server against the documentation.
 */
public final class PartitionRule {

    private PartitionRule() {
    }

    /** CRC-32 of the IMEI's ASCII digits, unsigned, mod {@code partitions}. */
    public static int partitionOf(String imei, int partitions) {
        CRC32 crc = new CRC32();
        crc.update(imei.getBytes(StandardCharsets.US_ASCII));
        return (int) (crc.getValue() % partitions);
    }
}
