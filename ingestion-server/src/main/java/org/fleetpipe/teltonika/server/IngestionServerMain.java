package org.fleetpipe.teltonika.server;

import io.netty.util.ResourceLeakDetector;
import org.fleetpipe.teltonika.registry.InstanceConflictException;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.config.SettingsException;
import org.fleetpipe.teltonika.server.config.SettingsLoader;
import org.fleetpipe.teltonika.server.dev.DevelopmentRedis;
import org.fleetpipe.teltonika.server.stream.PartitionLayout;
import org.fleetpipe.teltonika.server.warmup.DevicePathWarmUp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code java -jar ingestion-server.jar}: read settings, start, stop cleanly on SIGTERM. */
public final class IngestionServerMain {

    private static final Logger LOG = LoggerFactory.getLogger(IngestionServerMain.class);

    /**
     * Runs the device path's warm-up alone and exits, touching no Redis: the training run of a
     * class-data archive (AppCDS on JDK 17, the AOT cache on JDK 25; deploy/Dockerfile).
     */
    static final String WARM_UP_ONLY = "--warm-up-only";

    private IngestionServerMain() {
    }

    private static int warmUpOnly() {
        try {
            ServerSettings settings = SettingsLoader.load();
            DevicePathWarmUp.Result r = new DevicePathWarmUp(settings).run();
            System.out.printf("warm-up only: %d packets (%d records) of %d synthetic devices in %d ms%n",
                    r.packets(), r.records(), r.devices(), r.took().toMillis());
            return 0;
        } catch (SettingsException e) {
            System.err.println("configuration error: " + e.getMessage());
            return 2;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        // Netty's sampling leak detector costs about a tenth of the allocations on the hot path
        // (measured, BENCHMARKS.md). The tests run at paranoid; production turns it back on with
        // -Dio.netty.leakDetection.level=simple when a leak is suspected.
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        if (args.length == 1 && args[0].equals(WARM_UP_ONLY)) {
            System.exit(warmUpOnly());
            return;
        }
        ServerSettings settings;
        try {
            settings = SettingsLoader.load();
            if (settings.redis().url().isEmpty()) {
                DevelopmentRedis.requireAvailable();
            }
        } catch (SettingsException e) {
            System.err.println("configuration error: " + e.getMessage());
            System.exit(2);
            return;
        }
        // A remote shutdown drains through the shutdown hook below, and the process exits 0.
        IngestionServer server = new IngestionServer(settings).onRemoteShutdown(() -> System.exit(0));
        try {
            server.start();
        } catch (InstanceConflictException | PartitionLayout.Conflict e) {
            LOG.error("could not start: {}", e.getMessage());
            System.exit(1);
            return;
        } catch (Exception e) {
            LOG.error("could not start: {}", e.toString(), e);
            System.exit(1);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("stop requested");
            try {
                server.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // A stop that completed is a clean exit: 0, not the 143 the JVM reports after SIGTERM,
            // so Kubernetes and supervisors can tell it from a crash.
            Runtime.getRuntime().halt(0);
        }, "shutdown"));
    }
}
