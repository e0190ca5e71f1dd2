package org.fleetpipe.teltonika.server.health;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Logs each queue's status change once, one line: queue, from, to, why. A queue starts healthy. */
final class StatusChanges {

    private static final Logger LOG = LoggerFactory.getLogger(QueueHealthMonitor.class);

    private final Map<String, HealthStatus> last = new HashMap<>();

    /** The lines logged for this pass (for tests). */
    List<String> observe(List<QueueHealth> queues) {
        List<String> lines = new ArrayList<>();
        for (QueueHealth q : queues) {
            HealthStatus was = last.getOrDefault(q.queue(), HealthStatus.HEALTHY);
            last.put(q.queue(), q.status());
            if (was == q.status()) {
                continue;
            }
            String line = String.format("queue health changed queue=%s from=%s to=%s why=\"%s\"", q.queue(),
                    was.label(), q.status().label(), q.reason());
            lines.add(line);
            if (q.status().ordinal() > was.ordinal()) {
                LOG.warn(line);
            } else {
                LOG.info(line);
            }
        }
        return lines;
    }
}
