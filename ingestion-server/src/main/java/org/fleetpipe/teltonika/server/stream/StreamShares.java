package org.fleetpipe.teltonika.server.stream;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.fleetpipe.teltonika.codec.Imei;

/**
 * Who may add to the entries the consumer groups still need once they are scarce. Below
 * {@code threshold} entries nobody is held for a share. From it on, this instance's part of the
 * threshold is divided max-min fairly ({@link FairShares}) among source networks (/24, /64) and then
 * among the devices of each network: a network or device within its fair share is never held for
 * another's use; a device over its network's level, in a network over its share, is held (its
 * packets wait, no ACK), the heaviest first. The room from the threshold to the cap stays for those
 * within their share.
 *
 * <p>Each device's use is estimated on this instance, as before: what it wrote, scaled down on every
 * retention pass by the share of this instance's writes the stream no longer holds unread; its
 * network's use is the sum of its devices'. With several instances each divides its own part of the
 * threshold (its estimates over the stream's unread entries) among what it sees. The levels are
 * computed on the retention pass, and once more as soon as the writes since the pass take the stream
 * past the threshold; a packet only compares its device's and network's counts with them. They hold
 * until a pass sees the stream below 90 % of the threshold, as the cap does.
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
    private final Executor recompute;
    private final Map<Imei, DeviceUse> devices = new ConcurrentHashMap<>();
    private final Map<InetAddress, NetworkUse> networks = new ConcurrentHashMap<>();
    private final AtomicLong sinceMeasured = new AtomicLong();
    private final AtomicBoolean recomputeAsked = new AtomicBoolean();
    private volatile long measured;
    private volatile long networkLevel = FairShares.UNLIMITED;
    /**
     * Whether the levels were computed under pressure: from the stream past the threshold until a
     * pass measures it below {@link StreamRetentionSettings#RESUME_FRACTION} of it, so that a pass
     * that does not see the writes still in flight does not release every held device at once.
     */
    private volatile boolean pressure;

    /**
     * {@code threshold} entries unread from which shares apply (0 = never); {@code recompute} runs
     * the recomputation asked for between passes (never on the packet's thread).
     */
    public StreamShares(long threshold, Executor recompute) {
        this.threshold = threshold;
        this.recompute = recompute;
    }

    /** Shares from {@code fraction} of {@code settings}' cap; off without a cap or with a fraction of 1. */
    public static StreamShares of(StreamRetentionSettings settings, double fraction, Executor recompute) {
        return new StreamShares(settings.capped() && fraction > 0 && fraction < 1
                ? Math.max(1, (long) (settings.maxUnread() * fraction)) : 0, recompute);
    }

    /** No shares. */
    public static StreamShares off() {
        return new StreamShares(0, Runnable::run);
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
            askRecompute();
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
        if (own + records <= net.deviceLevel) {
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

    private void askRecompute() {
        if (recomputeAsked.compareAndSet(false, true)) {
            try {
                recompute.execute(this::recompute);
            } catch (RejectedExecutionException stopping) {
                recomputeAsked.set(false);
            }
        }
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
        synchronized (this) {
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
        }
        recompute();
    }

    /** Sums the networks from their devices and computes the levels. */
    private synchronized void recompute() {
        recomputeAsked.set(false);
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
            for (NetworkUse n : networks.values()) {
                n.deviceLevel = FairShares.UNLIMITED;
            }
            return;
        }
        // This instance's part of the threshold: its own entries' part of the stream's (all of its
        // entries, at most, while a lagging pass sees the stream just below the threshold).
        long budget = (long) ((double) threshold * Math.min(total, stream) / Math.max(threshold, stream));
        FairShares.Levels<NetworkUse> levels = FairShares.of(budget, uses);
        for (NetworkUse n : networks.values()) {
            n.deviceLevel = levels.device(n);
        }
        networkLevel = levels.network();
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
