package org.fleetpipe.teltonika.bridge.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The entries this replica read and has not acknowledged yet: touched so no other replica claims them. */
public final class HeldEntries {

    private final Set<String> ids = ConcurrentHashMap.newKeySet();

    /** Returns false when the entry is already held (a claim that returned one of ours). */
    boolean hold(String id) {
        return ids.add(id);
    }

    void release(List<String> released) {
        released.forEach(ids::remove);
    }

    public int size() {
        return ids.size();
    }

    public List<String> snapshot() {
        return new ArrayList<>(ids);
    }
}
