package org.fleetpipe.teltonika.simulator.device;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;
import org.fleetpipe.teltonika.codec.avl.GpsElement;
import org.fleetpipe.teltonika.codec.avl.IoElement;

/**
 * The records of one vehicle: it drives along a route with the ignition on, parks with it off,
 * and reports what an FMB tracker would (ignition, movement, GSM signal, voltages, odometer,
 * ICCID and, in Codec 8E, now and then a large variable-length beacon list).
 */
public final class RecordGenerator {

    static final int IO_IGNITION = 239;
    static final int IO_MOVEMENT = 240;
    static final int IO_GSM_SIGNAL = 21;
    static final int IO_EXTERNAL_VOLTAGE = 66;
    static final int IO_BATTERY_VOLTAGE = 67;
    static final int IO_TOTAL_ODOMETER = 16;
    static final int IO_ICCID1 = 11;
    static final int IO_BEACONS = 385;

    /** Codec 16 generation types. */
    static final int GENERATION_ON_CHANGE = 5;
    static final int GENERATION_PERIODICAL = 7;

    /** About one Codec 8E record in twenty carries a beacon list. */
    private static final int BEACON_ONE_IN = 20;
    static final int MAX_BEACON_BYTES = 1024;

    private final CodecId codec;
    private final Route route;
    private final Random random;
    private final LongSupplier clockMillis;
    private final long iccid;

    private double distance;
    private double odometer;
    private int speed = 40;
    private boolean ignition = true;
    private int phaseLeft;
    private long lastTimestamp;

    /**
     * @param startDistance where on the route the vehicle starts, so a fleet is spread out
     * @param seed          makes the records of a device repeatable
     */
    public RecordGenerator(CodecId codec, Route route, double startDistance, long seed, LongSupplier clockMillis) {
        if (!codec.isAvl()) {
            throw new IllegalArgumentException("not an AVL codec: " + codec);
        }
        this.codec = codec;
        this.route = route;
        this.random = new Random(seed);
        this.clockMillis = clockMillis;
        this.distance = startDistance;
        this.odometer = 10_000_000 + random.nextInt(90_000_000);
        this.iccid = 8_937_004_000_000_000_000L + random.nextInt(1_000_000_000);
        // Devices start at different points of their trip so they do not all park at once.
        this.phaseLeft = 20 + random.nextInt(280);
    }

    public CodecId codec() {
        return codec;
    }

    /**
     * The next {@code count} records, spread over {@code period} and ending now. Timestamps only
     * ever increase, so every record of a device is unique even when packets come faster than
     * the period.
     */
    public List<AvlRecord> next(int count, Duration period) {
        long now = clockMillis.getAsLong();
        long spacing = Math.max(1, period.toMillis() / count);
        List<AvlRecord> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long timestamp = Math.max(now - (count - 1 - i) * spacing, lastTimestamp + 1);
            lastTimestamp = timestamp;
            out.add(nextRecord(timestamp, spacing / 1000.0));
        }
        return out;
    }

    private AvlRecord nextRecord(long timestamp, double seconds) {
        boolean changed = false;
        if (--phaseLeft <= 0) {
            ignition = !ignition;
            phaseLeft = ignition ? 60 + random.nextInt(240) : 10 + random.nextInt(50);
            changed = true;
        }
        if (ignition) {
            speed = Math.max(15, Math.min(110, speed + random.nextInt(17) - 8));
        } else {
            speed = 0;
        }
        double metres = speed / 3.6 * seconds;
        distance += metres;
        odometer += metres;
        RoutePoint here = route.at(distance);
        short altitude = (short) (112 + Math.round(18 * Math.sin(distance / 700)));
        int satellites = 7 + random.nextInt(8);
        int angle = ((int) Math.round(here.headingDegrees())) % 360;
        GpsElement gps = new GpsElement(here.longitudeE7(), here.latitudeE7(), altitude, angle, satellites, speed);

        List<IoElement> io = new ArrayList<>(9);
        io.add(new IoElement.Fixed(IO_IGNITION, 1, ignition ? 1 : 0));
        io.add(new IoElement.Fixed(IO_MOVEMENT, 1, speed > 0 ? 1 : 0));
        io.add(new IoElement.Fixed(IO_GSM_SIGNAL, 1, 3 + random.nextInt(3)));
        io.add(new IoElement.Fixed(IO_EXTERNAL_VOLTAGE, 2,
                ignition ? 13_600 + random.nextInt(400) : 12_300 + random.nextInt(200)));
        io.add(new IoElement.Fixed(IO_BATTERY_VOLTAGE, 2, 3_900 + random.nextInt(200)));
        io.add(new IoElement.Fixed(IO_TOTAL_ODOMETER, 4, (long) odometer & 0xFFFF_FFFFL));
        io.add(new IoElement.Fixed(IO_ICCID1, 8, iccid));
        if (codec == CodecId.CODEC_8E && random.nextInt(BEACON_ONE_IN) == 0) {
            byte[] beacons = new byte[256 + random.nextInt(MAX_BEACON_BYTES - 255)];
            random.nextBytes(beacons);
            io.add(new IoElement.Variable(IO_BEACONS, beacons));
        }
        int generation = codec == CodecId.CODEC_16
                ? (changed ? GENERATION_ON_CHANGE : GENERATION_PERIODICAL) : AvlRecord.NO_GENERATION;
        return new AvlRecord(timestamp, changed ? 1 : 0, gps, changed ? IO_IGNITION : 0, generation, io);
    }
}
