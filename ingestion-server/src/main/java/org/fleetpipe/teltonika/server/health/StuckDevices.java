package org.fleetpipe.teltonika.server.health;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The devices whose commands are stuck longest, at most {@link #MAX} of them, for the queue
 * health's {@code stuck_devices}: which devices to look at ({@code GET /api/v1/devices/{imei}/commands}),
 * not only how many.
 */
final class StuckDevices {

    static final int MAX = 10;

    private record Stuck(String imei, String command, long ageMs) {
    }

    /** The youngest at the head, so the oldest MAX stay. */
    private final PriorityQueue<Stuck> oldest = new PriorityQueue<>(Comparator.comparingLong(Stuck::ageMs));

    void add(String imei, String command, long ageMs) {
        oldest.add(new Stuck(imei, command, ageMs));
        if (oldest.size() > MAX) {
            oldest.poll();
        }
    }

    /** Oldest first: {@code imei}, {@code command} (its id), {@code age_ms}. */
    List<Map<String, Object>> list() {
        List<Stuck> sorted = new ArrayList<>(oldest);
        sorted.sort(Comparator.comparingLong(Stuck::ageMs).reversed());
        List<Map<String, Object>> out = new ArrayList<>();
        for (Stuck s : sorted) {
            Map<String, Object> device = new LinkedHashMap<>();
            device.put("imei", s.imei());
            device.put("command", s.command());
            device.put("age_ms", s.ageMs());
            out.add(device);
        }
        return out;
    }
}
