package org.fleetpipe.teltonika.server.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Accepted connections waiting for their turn to be handed on, in a queue per source network, bounded
 * per network and in all, and let go one network at a time in turn, so a network with a few waiting is
 * never behind one with thousands. Not thread-safe: the accept thread's alone.
 */
final class WaitingAccepts {

    /** A connection accepted by {@code listener} from {@code network}, not registered yet. */
    record Waiting(ChannelHandlerContext listener, Channel connection, InetAddress network) {
    }

    /** What became of a connection offered to wait. */
    enum Outcome {
        /** It waits. */
        QUEUED,
        /** It waits, in the place of the newest of the network with the most waiting (closed by the caller). */
        QUEUED_IN_PLACE,
        /** Its network has its most waiting already: the caller closes it. */
        REFUSED,
        /** The bound in all is reached, and its network holds its fair part of it: the caller closes it. */
        REFUSED_FULL,
        /** It waits, past the bound in all, where no network had more than its own: the caller stops accepting. */
        QUEUED_FULL
    }

    private final int maxPerNetwork;
    private final int maxTotal;
    private final Map<InetAddress, ArrayDeque<Waiting>> byNetwork = new HashMap<>();
    /** The networks with connections waiting, in the order of their next turn. */
    private final ArrayDeque<InetAddress> turns = new ArrayDeque<>();
    private int total;
    /** The connection taken out by the last QUEUED_IN_PLACE. */
    private Waiting displaced;

    WaitingAccepts(int maxPerNetwork, int maxTotal) {
        this.maxPerNetwork = maxPerNetwork;
        this.maxTotal = maxTotal;
    }

    int size() {
        return total;
    }

    boolean has(InetAddress network) {
        return byNetwork.containsKey(network);
    }

    boolean full() {
        return total >= maxTotal;
    }

    /** Offers {@code waiting} to wait behind its network's; after QUEUED_IN_PLACE, {@link #displaced()} is to be closed. */
    Outcome offer(InetAddress network, Waiting waiting) {
        ArrayDeque<Waiting> queue = byNetwork.get(network);
        int mine = queue == null ? 0 : queue.size();
        if (mine >= maxPerNetwork) {
            return Outcome.REFUSED;
        }
        Outcome outcome = Outcome.QUEUED;
        if (total >= maxTotal) {
            if (mine > 0 && mine >= maxTotal / byNetwork.size()) {
                // Its network holds its fair part of the bound already: it gets no more.
                return Outcome.REFUSED_FULL;
            }
            InetAddress largest = largest();
            if (largest != null && byNetwork.get(largest).size() > mine + 1) {
                displaced = removeNewest(largest);
                outcome = Outcome.QUEUED_IN_PLACE;
            } else {
                outcome = Outcome.QUEUED_FULL;
            }
        }
        if (queue == null) {
            queue = new ArrayDeque<>();
            byNetwork.put(network, queue);
            turns.addLast(network);
        }
        queue.addLast(waiting);
        total++;
        return outcome;
    }

    Waiting displaced() {
        Waiting d = displaced;
        displaced = null;
        return d;
    }

    /**
     * Hands on waiting connections, one per network per round, the networks in turn, while
     * {@code mayGo} lets the network at hand go (and counts it); stops at a round that let none go,
     * or after {@code max}. Returns how many went.
     */
    int release(int max, Predicate<InetAddress> mayGo, Consumer<Waiting> handOn) {
        int released = 0;
        boolean any = true;
        while (any && released < max && !turns.isEmpty()) {
            any = false;
            for (int n = turns.size(); n > 0 && released < max; n--) {
                InetAddress network = turns.pollFirst();
                if (!mayGo.test(network)) {
                    turns.addLast(network);
                    continue;
                }
                ArrayDeque<Waiting> queue = byNetwork.get(network);
                Waiting next = queue.pollFirst();
                total--;
                if (queue.isEmpty()) {
                    byNetwork.remove(network);
                } else {
                    turns.addLast(network);
                }
                released++;
                any = true;
                handOn.accept(next);
            }
        }
        return released;
    }

    /** Takes out every connection of {@code listener} (its listener closed), for the caller to close. */
    void removeAll(ChannelHandlerContext listener, Consumer<Waiting> onRemoved) {
        for (Iterator<Map.Entry<InetAddress, ArrayDeque<Waiting>>> it = byNetwork.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<InetAddress, ArrayDeque<Waiting>> entry = it.next();
            entry.getValue().removeIf(w -> {
                if (w.listener() != listener) {
                    return false;
                }
                total--;
                onRemoved.accept(w);
                return true;
            });
            if (entry.getValue().isEmpty()) {
                turns.remove(entry.getKey());
                it.remove();
            }
        }
    }

    /** The network with the most waiting; a scan, only made when the bound in all is reached. */
    private InetAddress largest() {
        InetAddress largest = null;
        int most = 0;
        for (Map.Entry<InetAddress, ArrayDeque<Waiting>> entry : byNetwork.entrySet()) {
            if (entry.getValue().size() > most) {
                most = entry.getValue().size();
                largest = entry.getKey();
            }
        }
        return largest;
    }

    private Waiting removeNewest(InetAddress network) {
        ArrayDeque<Waiting> queue = byNetwork.get(network);
        Waiting newest = queue.pollLast();
        total--;
        if (queue.isEmpty()) {
            byNetwork.remove(network);
            turns.remove(network);
        }
        return newest;
    }
}
