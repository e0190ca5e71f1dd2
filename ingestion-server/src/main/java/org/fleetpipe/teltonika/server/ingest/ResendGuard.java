package org.fleetpipe.teltonika.server.ingest;

import java.net.InetAddress;
import org.fleetpipe.teltonika.codec.Imei;

/**
 * What the writer knows of a packet's connection: whether its records may have been sent before
 * (then the script reads the device's dedup sets before storing), and whether the device's info
 * hash is due for a refresh. Reading the sets and refreshing the hash are 4 of a packet's 7 Redis
 * calls inside the script, and most packets need neither.
 *
 * <p>A device resends what was not acknowledged: after a lost ACK it reconnects (to any replica)
 * and sends those records first, or, on the same connection, the same packet again. So on a TCP
 * connection the first {@link #CHECKED_AFTER_LOGIN} packets are checked, and any later packet that
 * shares a record with the one before it. A UDP datagram has no connection: every one is checked.
 * The dedup sets are written with every stored packet, in the same script, whatever this says.
 *
 * <p>One per connection, touched only from its event loop.
 */
public final class ResendGuard {

    /** Packets after a login whose records may repeat what was sent before the connection dropped. */
    static final int CHECKED_AFTER_LOGIN = 2;
    /** The device info hash's TTL and last record time are refreshed at most this often per connection. */
    static final long INFO_REFRESH_EVERY_MS = 10_000;

    private static final long[] NONE = new long[0];

    private final boolean everyPacket;
    /** The source network (NetworkKey), for the stream's fair shares; null when unknown. */
    private final InetAddress network;
    private int packets;
    private long[] lastIds = NONE;
    private int lastCount;
    private long infoRefreshedAt = Long.MIN_VALUE / 2;
    private int addedToRecent;
    /** Set by the first packet: a reference stored once, not on every packet. */
    private DeviceBulks bulks;

    private ResendGuard(boolean everyPacket, InetAddress network) {
        this.everyPacket = everyPacket;
        this.network = network;
    }

    /** For a TCP connection, from its login on; its source network unknown (tools, tests). */
    public static ResendGuard forConnection() {
        return forConnection(null);
    }

    /** For a TCP connection from {@code network} (its NetworkKey), from its login on. */
    public static ResendGuard forConnection(InetAddress network) {
        return new ResendGuard(false, network);
    }

    /** Every packet checked and every packet refreshing the info: a writer called without a connection. */
    public static ResendGuard everyPacket() {
        return everyPacket(null);
    }

    /** As {@link #everyPacket()}, for a datagram from {@code network} (its NetworkKey). */
    public static ResendGuard everyPacket(InetAddress network) {
        return new ResendGuard(true, network);
    }

    /** The packets' source network (NetworkKey); null when unknown. */
    public InetAddress network() {
        return network;
    }

    /**
     * Whether a packet with these record identities may repeat records sent before, so the dedup
     * sets must be read; remembers them as the connection's last packet.
     */
    boolean mayBeResent(long[] ids) {
        return mayBeResent(ids, ids.length);
    }

    /** As {@link #mayBeResent(long[])}, for the first {@code count} of {@code ids}. */
    boolean mayBeResent(long[] ids, int count) {
        boolean check = everyPacket || packets < CHECKED_AFTER_LOGIN || overlapsLast(ids, count);
        packets++;
        // Copied into an array of the guard's own: storing the packet's array here on every packet
        // would dirty a card of this long-lived object, which G1 scans in every young pause.
        if (lastIds.length < count) {
            lastIds = new long[Math.max(16, count)];
        }
        System.arraycopy(ids, 0, lastIds, 0, count);
        lastCount = count;
        if (check) {
            // The script keeps the recent set under the cap itself, and leaves at most the cap in it.
            addedToRecent = 0;
        }
        return check;
    }

    /**
     * A packet stored without the script added {@code identities} to the device's recent set:
     * whether the set should now become the previous generation. Counted here, not asked of Redis:
     * the count starts after the last scripted packet, which left at most {@code cap} in the set,
     * so the set never holds more than twice the cap (still an intset, 512 members by default).
     */
    boolean addedToRecent(int identities, int cap) {
        addedToRecent += identities;
        if (addedToRecent < cap) {
            return false;
        }
        addedToRecent = 0;
        return true;
    }

    private boolean overlapsLast(long[] ids, int count) {
        // Both hold at most 255 identities, usually about ten.
        for (int k = 0; k < count; k++) {
            for (int i = 0; i < lastCount; i++) {
                if (ids[k] == lastIds[i]) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The connection's device's encoded IMEI and keys, made on its first packet. */
    DeviceBulks bulks(Imei imei, IngestKeys keys) {
        DeviceBulks known = bulks;
        if (known == null || !known.isFor(imei, keys)) {
            known = DeviceBulks.of(imei, keys);
            bulks = known;
        }
        return known;
    }

    /** Whether this packet refreshes the device's info hash; when it does, the next one need not for a while. */
    boolean infoRefreshDue(long nowMillis) {
        if (!everyPacket && nowMillis - infoRefreshedAt < INFO_REFRESH_EVERY_MS) {
            return false;
        }
        infoRefreshedAt = nowMillis;
        return true;
    }
}
