package org.fleetpipe.teltonika.server.parts;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The parts in the order they started; the stop goes through every {@link StopStage}, parts in reverse. */
public final class ServerParts {

    private static final Logger LOG = LoggerFactory.getLogger(ServerParts.class);

    private final List<Part> started = new ArrayList<>();

    /** Starts {@code part} and keeps it for the stop (also when its start failed half-way). */
    public <P extends Part> P start(P part) throws Exception {
        started.add(part);
        part.start();
        return part;
    }

    /** Every stage in order; within a stage the parts in reverse. A part that fails a stage does not stop the rest. */
    public void stop(StopBudget budget) throws InterruptedException {
        for (StopStage stage : StopStage.values()) {
            for (int i = started.size() - 1; i >= 0; i--) {
                try {
                    started.get(i).stop(stage, budget);
                } catch (RuntimeException e) {
                    LOG.warn("stop stage {} of {} failed: {}", stage, started.get(i).getClass().getSimpleName(),
                            e.toString());
                }
            }
        }
    }
}
