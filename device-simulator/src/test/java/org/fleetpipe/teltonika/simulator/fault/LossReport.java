package org.fleetpipe.teltonika.simulator.fault;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.fleetpipe.teltonika.server.cluster.ServerProcess;

/**
 * Says whose fault a missing record is. The simulator's acknowledged set is checked against what
 * the {@link WireRecorder} saw: a record it counts that no server ACKed on the wire is the
 * simulator's miscount; one a server ACKed and the stream lacks is the server's. On a loss it
 * prints a sample, the stored records around it, the devices' wire events and the servers' logs.
 */
final class LossReport {

    private static final int SAMPLE_DEVICES = 3;
    private static final int AROUND_MILLIS = 3_000;
    private static final int LOG_TAIL = 40;
    private static final int EVENTS_BEFORE = 20;
    private static final int EVENTS_AFTER = 60;

    private LossReport() {
    }

    /** {@code explain}: on a loss, print the samples and logs (not where losses are expected). */
    static void print(Set<String> acknowledged, WireRecorder wire, Set<String> stored, Set<String> lost,
                      List<ServerProcess> servers, boolean explain) {
        Set<String> notAckedOnWire = minus(acknowledged, wire.acked());
        Set<String> neverSent = minus(acknowledged, wire.sent());
        Set<String> ackedNotStored = minus(wire.acked(), stored);
        System.out.printf("loss report: simulator acknowledged %d, servers ACKed on the wire %d, stored %d; "
                + "lost %d = %d the servers never ACKed (%d never even sent) + %d ACKed and not stored%n",
                acknowledged.size(), wire.acked().size(), stored.size(), lost.size(),
                intersect(lost, notAckedOnWire).size(), intersect(lost, neverSent).size(),
                intersect(lost, ackedNotStored).size());
        System.out.println("--- test steps and Redis roles:");
        wire.marks().forEach(m -> System.out.println("  " + m));
        if (!explain || lost.isEmpty() && ackedNotStored.isEmpty()) {
            return;
        }
        TreeMap<String, TreeSet<Long>> byImei = new TreeMap<>();
        for (String key : lost.isEmpty() ? ackedNotStored : lost) {
            int colon = key.indexOf(':');
            byImei.computeIfAbsent(key.substring(0, colon), i -> new TreeSet<>()).add(Long.parseLong(
                    key.substring(colon + 1)));
        }
        System.out.println("--- lost per device: " + byImei.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue().size()).collect(Collectors.joining(", ")));
        byImei.entrySet().stream().limit(SAMPLE_DEVICES).forEach(e -> {
            String imei = e.getKey();
            TreeSet<Long> missing = e.getValue();
            long from = missing.first();
            long to = missing.last();
            System.out.printf("--- %s: %d lost, ts %d..%d; first lost: acked on wire=%s, sent=%s%n", imei,
                    missing.size(), from, to, wire.acked().contains(imei + ":" + from),
                    wire.sent().contains(imei + ":" + from));
            TreeSet<Long> storedHere = stored.stream().filter(k -> k.startsWith(imei + ":"))
                    .map(k -> Long.parseLong(k.substring(imei.length() + 1)))
                    .filter(ts -> ts >= from - AROUND_MILLIS && ts <= to + AROUND_MILLIS)
                    .collect(Collectors.toCollection(TreeSet::new));
            System.out.println("  stored within " + AROUND_MILLIS + " ms before the first lost: "
                    + storedHere.headSet(from));
            System.out.println("  stored within " + AROUND_MILLIS + " ms after the last lost: "
                    + storedHere.tailSet(to, false));
            System.out.println("  stored between the first and the last lost: " + storedHere.subSet(from, to).size());
            List<String> events = wire.events(imei);
            int at = 0;
            while (at < events.size() && !events.get(at).contains(Long.toString(from))) {
                at++;
            }
            int first = Math.max(0, Math.min(at, events.size()) - EVENTS_BEFORE);
            int last = Math.min(events.size(), at + EVENTS_AFTER);
            System.out.println("  wire events " + first + ".." + last + " of " + events.size()
                    + " (the first lost record's frame at " + at + "):");
            events.subList(first, last).forEach(line -> System.out.println("    " + line));
        });
        for (int i = 0; i < servers.size(); i++) {
            List<String> output = servers.get(i).output();
            System.out.println("--- server " + i + " (" + servers.get(i).tcpPort + "), last " + LOG_TAIL + " of "
                    + output.size() + " lines:");
            output.subList(Math.max(0, output.size() - LOG_TAIL), output.size())
                    .forEach(line -> System.out.println("  " + line));
        }
    }

    private static Set<String> minus(Set<String> a, Set<String> b) {
        Set<String> out = new HashSet<>(a);
        out.removeAll(b);
        return out;
    }

    private static Set<String> intersect(Set<String> a, Set<String> b) {
        Set<String> out = new HashSet<>(a);
        out.retainAll(b);
        return out;
    }
}
