package org.fleetpipe.teltonika.redis;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** The threads of periodic background jobs (heartbeat, janitor, sweeps), which may block on Redis. */
public final class BackgroundThreads {

    private BackgroundThreads() {
    }

    /** One daemon thread, so a job that is still scheduled never keeps the JVM from exiting. */
    public static ScheduledExecutorService single(String name) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }
}
