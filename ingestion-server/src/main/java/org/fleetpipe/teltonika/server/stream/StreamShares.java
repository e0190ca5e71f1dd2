package org.fleetpipe.teltonika.server.stream;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.fleetpipe.teltonika.codec.Imei;

/**
 * Who may add to the entries the consumer groups still need once they are scarce. Below
 * {@code threshold} entries nobody is held for a share. From it on, this instance's part of the
 * threshold is divided max-min fairly ({@link FairShares}) among source networks (/24, /64) and then
 * among the devices of each network: a network within its fair share is never held for another's
 * use. A network over its share gets no more than a part of the room from the threshold to the cap
 * (the room over the number of networks plus one), and only for its devices under their own fair
 * share of the network's: a device over it is held (its packets wait, no ACK), the heaviest first,
 * and the network's devices are held once the network used its part. Use only grows until the
 * consumers read, so without that bound the light devices of a network whose heavy one holds its
 * share would take the room of the other networks (many made-up IMEIs behind one host).
 *
 * <p>Each device's use is estimated on this instance, as before: what it wrote, scaled down on every
 * retention pass by the share of this instance's writes the stream no longer holds unread; its
 * network's use is the sum of its devices'. With several instances each divides its own part of the
 * threshold (its estimates over the stream's unread entries) among what it sees. The levels are
 * computed on the retention pass, and by the packet whose write takes the stream past the threshold
 * (once per episode: they hold until a pass sees the stream below 90 % of the threshold, as the cap
 * does); any other packet only compares its device's and network's counts with them.
 */
public final class StreamShares {

    /** Why a packet is held, or {@link #NONE}. */
    public enum Hold {
        NONE("none"),
        /** Its network is over its fair share and the device is one of those that make it so. */
        NETWORK_SHARE("network-share"),
        /** Its network is over its fair share and the device holds at least half its network's entries. */
        DEVICE_SHARE("device-share"),
        /** The stream (or Redis's memory) reached its cap: every device of the partition waits. */
        STREAM_FULL("stream-full");

        private final String label;

        Hold(String label) {
            this.label = label;
        }

        /** The metric tag. */
        public String label() {
            return label;
        }
    }

    /** The network of packets whose source is unknown (tools, tests). */
    static final InetAddress UNKNOWN_NETWORK;

    static {
        try {
            UNKNOWN_NETWORK = InetAddress.getByAddress("unknown", new byte[4]);
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private final long threshold;
    private final long cap;
    private final Map<Imei, DeviceUse> devices = new ConcurrentHashMap<>();
    private final Map<InetAddress, NetworkUse> networks = new ConcurrentHashMap<>();
    private final AtomicLong sinceMeasured = new AtomicLong();
    /** Held while the levels are computed: by the retention pass, or by the packet that found the stream past the threshold. */
    private final ReentrantLock computing = new ReentrantLock();
    private volatile long measured;
    private volatile long networkLevel = FairShares.UNLIMITED;
    /** {@link #networkLevel} plus the part of the room a network over it may take for its light devices. */
    private volatile long networkCeiling = FairShares.UNLIMITED;
    /**
     * Whether the levels were computed under pressure: from the stream past the threshold until a
     * pass measures it below {@link StreamRetentionSettings#RESUME_FRACTION} of it, so that a pass
     * that does not see the writes still in flight does not release every held device at once.
     */
    private volatile boolean pressure;

    /**
     * {@code threshold} entries unread from which shares apply (0 = never), of {@code cap} entries
     * the groups may still need.
     */
    public StreamShares(long threshold, long cap) {
        this.threshold = threshold;
        this.cap = Math.max(cap, threshold);
    }

    /** Shares from {@code fraction} of {@code settings}' cap; off without a cap or with a fraction of 1. */
    public static StreamShares of(StreamRetentionSettings settings, double fraction) {
        return new StreamShares(settings.capped() && fraction > 0 && fraction < 1
                ? Math.max(1, (long) (settings.maxUnread() * fraction)) : 0, settings.maxUnread());
    }

    /** No shares. */
    public static StreamShares off() {
        return new StreamShares(0, 0);
    }

    public boolean enabled() {
        return threshold > 0;
    }

    /** Entries unread from which shares apply. */
    public long threshold() {
        return threshold;
    }

    /**
     * Counts {@code records} to the device and its network unless they take either past its fair
     * share; then nothing is counted and the reason is returned. {@code network} is the source's
     * {@link org.fleetpipe.teltonika.server.limits.NetworkKey}, null when unknown.
     */
    public Hold admit(Imei imei, InetAddress network, int records) {
        if (threshold == 0) {
            return Hold.NONE;
        }
        DeviceUse device = device(imei, network);
        Hold hold = check(device, records);
        if (hold == Hold.NONE) {
            device.unread.addAndGet(records);
            if (pressure) {
                // Below the threshold nobody reads the networks' sums: the recomputation adds them up anew.
                device.network.unread.addAndGet(records);
            }
            sinceMeasured.addAndGet(records);
        }
        return hold;
    }

    private Hold check(DeviceUse device, int records) {
        if (!pressure) {
            if (measured + sinceMeasured.get() < threshold) {
                return Hold.NONE;
            }
            // Once per pressure episode (it lasts until 90 % of the threshold): computed here, not on
            // the next pass, so that a burst is held at its share rather than when the pass comes.
            // Whoever finds the computation under way goes on: the levels land within milliseconds.
            if (computing.tryLock()) {
                try {
                    recompute();
                } finally {
                    computing.unlock();
                }
            }
            if (!pressure) {
                return Hold.NONE;
            }
        }
        NetworkUse net = device.network;
        long netUse = net.unread.get();
        if (netUse + records <= networkLevel) {
            return Hold.NONE;
        }
        long own = device.unread.get();
        if (own + records <= net.deviceLevel && netUse + records <= networkCeiling) {
            return Hold.NONE;
        }
        return 2 * own >= netUse ? Hold.DEVICE_SHARE : Hold.NETWORK_SHARE;
    }

    private DeviceUse device(Imei imei, InetAddress network) {
        InetAddress key = network == null ? UNKNOWN_NETWORK : network;
        DeviceUse device = devices.get(imei);
        if (device == null) {
            device = devices.computeIfAbsent(imei, k -> new DeviceUse(network(key)));
        }
        NetworkUse at = device.network;
        if (at.key != key && !at.key.equals(key)) {
            // The device came back from another network (a NAT pool moved): its entries go with it.
            NetworkUse now = network(key);
            long moved = device.unread.get();
            at.unread.addAndGet(-moved);
            now.unread.addAndGet(moved);
            device.network = now;
        }
        return device;
    }

    private NetworkUse network(InetAddress key) {
        NetworkUse net = networks.get(key);
        return net != null ? net : networks.computeIfAbsent(key, NetworkUse::new);
    }

    /**
     * The retention pass measured {@code streamUnread} entries the groups still need: every estimate
     * is scaled by it over the sum of the estimates (at most 1), devices at 0 are forgotten, and the
     * levels are computed again. Retention thread only.
     */
    public void measured(long streamUnread) {
        if (threshold == 0) {
            return;
        }
        computing.lock();
        try {
            sinceMeasured.set(0);
            measured = streamUnread;
            long sum = 0;
            for (DeviceUse d : devices.values()) {
                sum += d.unread.get();
            }
            if (sum > streamUnread) {
                double keep = sum == 0 ? 0 : (double) streamUnread / sum;
                devices.values().removeIf(d -> d.unread.updateAndGet(v -> (long) (v * keep)) == 0);
            }
            recompute();
        } finally {
            computing.unlock();
        }
    }

    /** Sums the networks from their devices and computes the levels; under {@link #computing}. */
    private void recompute() {
        Map<InetAddress, List<DeviceUse>> byNetwork = new HashMap<>();
        for (DeviceUse d : devices.values()) {
            byNetwork.computeIfAbsent(d.network.key, k -> new ArrayList<>()).add(d);
        }
        Map<NetworkUse, long[]> uses = new HashMap<>();
        long total = 0;
        for (Map.Entry<InetAddress, List<DeviceUse>> e : byNetwork.entrySet()) {
            // One object per network, even when a device met one that a pass had just forgotten.
            NetworkUse net = network(e.getKey());
            List<DeviceUse> list = e.getValue();
            long[] each = new long[list.size()];
            for (int i = 0; i < each.length; i++) {
                DeviceUse d = list.get(i);
                d.network = net;
                each[i] = d.unread.get();
            }
            long sum = FairShares.sum(each);
            total += sum;
            net.unread.set(sum);
            uses.put(net, each);
        }
        networks.keySet().retainAll(byNetwork.keySet());
        long stream = measured + sinceMeasured.get();
        if (stream < (pressure ? (long) (threshold * StreamRetentionSettings.RESUME_FRACTION) : threshold)) {
            pressure = false;
            networkLevel = FairShares.UNLIMITED;
            networkCeiling = FairShares.UNLIMITED;
            for (NetworkUse n : networks.values()) {
                n.deviceLevel = FairShares.UNLIMITED;
            }
            return;
        }
        // This instance's part of the threshold: its own entries' part of the stream's (all of its
        // entries, at most, while a lagging pass sees the stream just below the threshold).
        double part = (double) Math.min(total, stream) / Math.max(threshold, stream);
        long budget = (long) (threshold * part);
        FairShares.Levels<NetworkUse> levels = FairShares.of(budget, uses);
        for (NetworkUse n : networks.values()) {
            n.deviceLevel = levels.device(n);
        }
        long level = levels.network();
        // One part more than there are networks: the last for those that have not written yet.
        long room = (long) ((cap - threshold) * part) / (uses.size() + 1);
        networkCeiling = level == FairShares.UNLIMITED ? level : level + room;
        networkLevel = level;
        pressure = true;
    }

    /** The networks' fair share now, in entries; {@link FairShares#UNLIMITED} below the threshold. */
    public long networkLevel() {
        return networkLevel;
    }

    /** The device's estimate now (tests, logs). */
    public long estimate(Imei imei) {
        DeviceUse d = devices.get(imei);
        return d == null ? 0 : d.unread.get();
    }

    /** The estimate of the device's network now, summed from its devices (tests, logs: it walks them all). */
    public long networkEstimate(Imei imei) {
        DeviceUse of = devices.get(imei);
        if (of == null) {
            return 0;
        }
        long sum = 0;
        for (DeviceUse d : devices.values()) {
            if (d.network.key.equals(of.network.key)) {
                sum += d.unread.get();
            }
        }
        return sum;
    }

    /** The device's network, for logs; null when unknown. */
    public InetAddress networkOf(Imei imei) {
        DeviceUse d = devices.get(imei);
        return d == null || d.network.key == UNKNOWN_NETWORK ? null : d.network.key;
    }

    /** Devices with an estimate now. */
    public int tracked() {
        return devices.size();
    }

    /** Networks with an estimate now. */
    public int trackedNetworks() {
        return networks.size();
    }

    private static final class DeviceUse {
        final AtomicLong unread = new AtomicLong();
        volatile NetworkUse network;

        DeviceUse(NetworkUse network) {
            this.network = network;
        }
    }

    private static final class NetworkUse {
        final InetAddress key;
        final AtomicLong unread = new AtomicLong();
        volatile long deviceLevel = FairShares.UNLIMITED;

        NetworkUse(InetAddress key) {
            this.key = key;
        }
    }
}
