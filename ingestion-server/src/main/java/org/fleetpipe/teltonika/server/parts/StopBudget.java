package org.fleetpipe.teltonika.server.parts;

import java.time.Duration;
import java.util.function.LongSupplier;

/** One time budget for the whole stop (SHUTDOWN_GRACE), so Kubernetes' grace period can be sized from it. */
public final class StopBudget {

    private static final Duration A_SECOND = Duration.ofSeconds(1);

    private final long deadlineNanos;
    private final Duration grace;
    private final Duration drainWindow;
    private final LongSupplier nanoTime;

    public StopBudget(Duration grace, Duration drainWindow) {
        this(grace, drainWindow, System::nanoTime);
    }

    StopBudget(Duration grace, Duration drainWindow, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.deadlineNanos = nanoTime.getAsLong() + grace.toNanos();
        this.grace = grace;
        this.drainWindow = drainWindow;
    }

    /** What is left of the grace. */
    Duration left() {
        return Duration.ofNanos(Math.max(0, deadlineNanos - nanoTime.getAsLong()));
    }

    /** What is left, but at least a second: closing and releasing always get a moment. */
    Duration atLeastASecond() {
        Duration left = left();
        return left.compareTo(A_SECOND) < 0 ? A_SECOND : left;
    }

    /** The window connections are closed over: the drain window, never past the grace. */
    Duration drainWindow() {
        Duration left = left();
        return drainWindow.compareTo(left) <= 0 ? drainWindow : left;
    }

    Duration grace() {
        return grace;
    }
}
