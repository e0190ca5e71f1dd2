package org.fleetpipe.teltonika.server.parts;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.janitor.JanitorMetrics;
import org.fleetpipe.teltonika.janitor.JanitorTicker;
import org.fleetpipe.teltonika.janitor.RegistryJanitor;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.health.QueueHealthMonitor;
import org.fleetpipe.teltonika.server.ops.DeadLetterQueries;
import org.fleetpipe.teltonika.server.ops.Purger;

/** Housekeeping: the queues' health, the purge, and the janitor that evicts what dead instances left. */
public final class OpsPart implements Part {

    private final Shared shared;
    private final RedisPart redis;
    private final TelemetryPart telemetry;
    private final CommandPart commands;
    private final ThreadsPart threads;
    private final InstancePart instance;
    private QueueHealthMonitor queueHealth;
    private Purger purger;
    private JanitorTicker janitor;

    public OpsPart(Shared shared, RedisPart redis, TelemetryPart telemetry, CommandPart commands, ThreadsPart threads,
                   InstancePart instance) {
        this.shared = shared;
        this.redis = redis;
        this.telemetry = telemetry;
        this.commands = commands;
        this.threads = threads;
        this.instance = instance;
    }

    @Override
    public void start() {
        ServerSettings settings = shared.settings();
        RedisKeys keys = redis.keys();
        RedisClusterAsyncCommands<String, String> async = redis.async();
        queueHealth = new QueueHealthMonitor(async, keys, settings.queueHealth(), settings.commands().replyTimeout(),
                instance.identity()::id, settings.redis().commandTimeout(), shared.registry(), telemetry.health(),
                threads.jobs());
        purger = new Purger(async, keys, settings.ops(), commands.expiry(), shared.metrics(),
                settings.redis().commandTimeout(), threads.jobs());
        JanitorMetrics janitorMetrics = new JanitorMetrics(shared.registry());
        janitor = new JanitorTicker(new RegistryJanitor(async, keys, settings.janitor(), janitorMetrics,
                settings.redis().commandTimeout(), commands.deadInstanceCommands()), settings.janitor(),
                janitorMetrics, threads.jobs());
        if (settings.queueHealth().enabled()) {
            queueHealth.start();
        }
        purger.start();
        janitor.start();
    }

    QueueHealthMonitor queueHealth() {
        return queueHealth;
    }

    Purger purger() {
        return purger;
    }

    DeadLetterQueries deadLetters() {
        return new DeadLetterQueries(redis.async(), redis.keys());
    }

    @Override
    public void stop(StopStage stage, StopBudget budget) {
        if (stage != StopStage.STOP_JOBS) {
            return;
        }
        if (janitor != null) {
            janitor.close();
        }
        if (queueHealth != null) {
            queueHealth.close();
        }
        if (purger != null) {
            purger.close();
        }
    }
}
