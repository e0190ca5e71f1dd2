package org.fleetpipe.teltonika.server.parts;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.metrics.MicrometerCommandLatencyRecorder;
import io.lettuce.core.metrics.MicrometerOptions;
import org.fleetpipe.teltonika.janitor.JanitorScripts;
import org.fleetpipe.teltonika.redis.ClusterUrl;
import org.fleetpipe.teltonika.redis.LuaScript;
import org.fleetpipe.teltonika.redis.RedisConnector;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.registry.RegistryScripts;
import org.fleetpipe.teltonika.server.admission.AdmissionScripts;
import org.fleetpipe.teltonika.server.capture.CaptureScripts;
import org.fleetpipe.teltonika.server.command.CommandScripts;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.dev.DevelopmentRedis;
import org.fleetpipe.teltonika.server.health.HealthScripts;
import org.fleetpipe.teltonika.server.ingest.IngestKeys;
import org.fleetpipe.teltonika.server.ingest.IngestScripts;
import org.fleetpipe.teltonika.server.stream.PartitionLayout;
import org.fleetpipe.teltonika.server.stream.StreamScripts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection to Redis (a development Redis started first when REDIS_URL is unset), the operator
 * API's own, its keys, and every script loaded.
 */
public final class RedisPart implements Part {

    private static final Logger LOG = LoggerFactory.getLogger(RedisPart.class);

    private final Shared shared;
    private DevelopmentRedis localRedis;
    private String url;
    private RedisConnector redis;
    private RedisConnector.Dedicated api;
    private RedisKeys keys;
    private IngestKeys ingestKeys;

    public RedisPart(Shared shared) {
        this.shared = shared;
    }

    @Override
    public void start() {
        ServerSettings settings = shared.settings();
        url = settings.redis().url().orElseGet(this::startLocalRedis);
        redis = RedisConnector.connect(url, settings.redis().commandTimeout(),
                new MicrometerCommandLatencyRecorder(shared.registry(), MicrometerOptions.create()),
                settings.devices().hostile().redisRequestQueueSize());
        // The operator API's reads get a connection of their own: a large answer (a capture page)
        // never queues in front of a login's admission lookup or a device's ACK on the shared one.
        api = redis.dedicated();
        keys = new RedisKeys(settings.redis().namespace());
        ingestKeys = new IngestKeys(keys, settings.telemetry().partitions());
        PartitionLayout.claim(redis.sync(), ingestKeys);
        // Every script before the first device can connect, so no call has to fall back to EVAL
        // (which would go after calls issued meanwhile).
        LuaScript.loadAll(redis.sync(), RegistryScripts.all(), JanitorScripts.all(), CommandScripts.all(), IngestScripts.all(),
                StreamScripts.all(), AdmissionScripts.all(), CaptureScripts.all(), HealthScripts.all());
    }

    private String startLocalRedis() {
        localRedis = DevelopmentRedis.start(shared.settings().redis().embeddedPort());
        // The URL holds a random password: shown once, like a generated API token (redacted elsewhere).
        LOG.warn("REDIS_URL is not set: started an embedded Redis for development ({}), with a random password,"
                + " shown once: export REDIS_URL={} for redis-cli -u \"$REDIS_URL\" and the reference consumer."
                + " Set REDIS_URL in production.", localRedis.description(), localRedis.uri());
        return localRedis.uri();
    }

    RedisConnector connector() {
        return redis;
    }

    RedisClusterAsyncCommands<String, String> async() {
        return redis.async();
    }

    /** The operator API's own connection: for its reads (captures, devices), never a device's path. */
    RedisClusterAsyncCommands<String, String> apiAsync() {
        return api.async();
    }

    RedisKeys keys() {
        return keys;
    }

    /** The telemetry write's keys, in {@link #keys()}'s namespace, with TELEMETRY_PARTITIONS. */
    IngestKeys ingestKeys() {
        return ingestKeys;
    }

    String url() {
        return url;
    }

    /** The URL without its credentials, for the log. */
    String redactedUrl() {
        return ClusterUrl.redacted(url);
    }

    @Override
    public void stop(StopStage stage, StopBudget budget) {
        if (stage == StopStage.CLOSE_REDIS && redis != null) {
            if (api != null) {
                api.close();
            }
            redis.close();
        } else if (stage == StopStage.CLOSE_LOCAL_REDIS && localRedis != null) {
            localRedis.close();
        }
    }
}
