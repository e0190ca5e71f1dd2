package org.fleetpipe.teltonika.simulator.device;

import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import org.fleetpipe.teltonika.codec.CodecId;
import org.fleetpipe.teltonika.codec.avl.AvlRecord;

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
    /** Not java.util.Random: its compare-and-set per number was a visible part of generating a record. */
    private final SplittableRandom random;
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
        this.random = new SplittableRandom(seed);
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
     * the period. Decoded from what {@link #next(int, Duration, RecordBacklog)} writes, so tests of
     * these records test the bytes the devices send.
     */
    public List<AvlRecord> next(int count, Duration period) {
        RecordBacklog scratch = new RecordBacklog(count);
        next(count, period, scratch);
        scratch.take(count, Integer.MAX_VALUE);
        return scratch.inFlightPacket(codec).records();
    }

    /**
     * Writes the next {@code count} records (as {@link #next(int, Duration)} describes them) into
     * {@code backlog}, encoded as they go on the wire; returns how many it kept (the rest were
     * dropped, the backlog being full). No record objects: the load modes generate hundreds of
     * thousands a second, and building and encoding objects cost more CPU than sending them.
     */
    public int next(int count, Duration period, RecordBacklog backlog) {
        long now = clockMillis.getAsLong();
        long spacing = Math.max(1, period.toMillis() / count);
        int kept = 0;
        for (int i = 0; i < count; i++) {
            long timestamp = Math.max(now - (count - 1 - i) * spacing, lastTimestamp + 1);
            lastTimestamp = timestamp;
            writeRecord(backlog.openRecord(), timestamp, spacing / 1000.0);
            if (backlog.closeRecord()) {
                kept++;
            }
        }
        return kept;
    }

    /** One record in the codec's layout (AvlPacketEncoder's): header, GPS, then the IO groups by width. */
    private void writeRecord(ByteBuf out, long timestamp, double seconds) {
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
        int gsm = 3 + random.nextInt(3);
        int external = ignition ? 13_600 + random.nextInt(400) : 12_300 + random.nextInt(200);
        int battery = 3_900 + random.nextInt(200);
        byte[] beacons = null;
        if (codec == CodecId.CODEC_8E && random.nextInt(BEACON_ONE_IN) == 0) {
            beacons = new byte[256 + random.nextInt(MAX_BEACON_BYTES - 255)];
            random.nextBytes(beacons);
        }
        boolean c8 = codec == CodecId.CODEC_8;
        boolean c8e = codec == CodecId.CODEC_8E;
        out.writeLong(timestamp);
        out.writeByte(changed ? 1 : 0);
        out.writeInt(here.longitudeE7());
        out.writeInt(here.latitudeE7());
        out.writeShort(altitude);
        out.writeShort(angle);
        out.writeByte(satellites);
        out.writeShort(speed);
        writeWide(out, !c8, changed ? IO_IGNITION : 0);
        if (codec == CodecId.CODEC_16) {
            out.writeByte(changed ? GENERATION_ON_CHANGE : GENERATION_PERIODICAL);
        }
        writeWide(out, c8e, beacons == null ? 7 : 8);
        writeWide(out, c8e, 3);
        writeWide(out, !c8, IO_IGNITION);
        out.writeByte(ignition ? 1 : 0);
        writeWide(out, !c8, IO_MOVEMENT);
        out.writeByte(speed > 0 ? 1 : 0);
        writeWide(out, !c8, IO_GSM_SIGNAL);
        out.writeByte(gsm);
        writeWide(out, c8e, 2);
        writeWide(out, !c8, IO_EXTERNAL_VOLTAGE);
        out.writeShort(external);
        writeWide(out, !c8, IO_BATTERY_VOLTAGE);
        out.writeShort(battery);
        writeWide(out, c8e, 1);
        writeWide(out, !c8, IO_TOTAL_ODOMETER);
        out.writeInt((int) ((long) odometer & 0xFFFF_FFFFL));
        writeWide(out, c8e, 1);
        writeWide(out, !c8, IO_ICCID1);
        out.writeLong(iccid);
        if (c8e) {
            out.writeShort(beacons == null ? 0 : 1);
            if (beacons != null) {
                out.writeShort(IO_BEACONS);
                out.writeShort(beacons.length);
                out.writeBytes(beacons);
            }
        }
    }

    /** An id or count: two bytes where the codec widens it, one otherwise. */
    private static void writeWide(ByteBuf out, boolean wide, int value) {
        if (wide) {
            out.writeShort(value);
        } else {
            out.writeByte(value);
        }
    }
}
