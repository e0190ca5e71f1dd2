package org.fleetpipe.teltonika.bridge.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.fleetpipe.teltonika.bridge.stream.EntryId;

/** The entries this replica read and has not acknowledged yet: touched so no other replica claims them. */
public final class HeldEntries {

    private final Set<EntryId> entries = ConcurrentHashMap.newKeySet();

    /** Returns false when the entry is already held (a claim that returned one of ours). */
    boolean hold(EntryId entry) {
        return entries.add(entry);
    }

    void release(List<EntryId> released) {
        released.forEach(entries::remove);
    }

    /** Entries of one stream (partition) held: its batches in flight and queued. */
    int countOf(String stream) {
        int count = 0;
        for (EntryId entry : entries) {
            if (entry.stream().equals(stream)) {
                count++;
            }
        }
        return count;
    }

    public int size() {
        return entries.size();
    }

    public List<EntryId> snapshot() {
        return new ArrayList<>(entries);
    }
}
