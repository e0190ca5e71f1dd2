package org.fleetpipe.teltonika.server.parts;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.fleetpipe.teltonika.server.http.Readiness;

/** Whether this instance should take traffic: not stopping, writes confirmed, heartbeat fresh, and Redis answering. */
public final class ServerReadiness {

    private final InstancePart instance;
    private final TelemetryPart telemetry;
    private final RedisPart redis;
    private final int ackReplicas;
    private volatile boolean stopping;
    private volatile boolean redisAnswered = true;

    public ServerReadiness(InstancePart instance, TelemetryPart telemetry, RedisPart redis, int ackReplicas,
                    MeterRegistry meters) {
        this.instance = instance;
        this.telemetry = telemetry;
        this.redis = redis;
        this.ackReplicas = ackReplicas;
        Gauge.builder("teltonika.ready", this, r -> r.withoutRedis().ready() && r.redisAnswered ? 1 : 0)
                .description("1 while /health/ready would answer 200 (Redis as of the last readiness probe)")
                .register(meters);
    }

    /** From now on not ready: the stop began. */
    public void stopping() {
        stopping = true;
    }

    /** The answer of {@code /health/ready}, with a fresh PING. */
    CompletionStage<Readiness> check() {
        Readiness known = withoutRedis();
        if (!known.ready()) {
            return CompletableFuture.completedFuture(known);
        }
        return redis.async().ping().toCompletableFuture()
                .orTimeout(2, TimeUnit.SECONDS)
                .handle((pong, error) -> {
                    redisAnswered = error == null;
                    return redisAnswered ? known : Readiness.notReady("redis does not answer")
                            .withTelemetry(known.telemetry());
                });
    }

    /** Everything but a fresh PING; {@code teltonika_ready} shows it with the last PING's answer. */
    private Readiness withoutRedis() {
        String stream = telemetry.health() == null ? "healthy"
                : telemetry.health().assess(System.currentTimeMillis()).status().label();
        if (stopping) {
            return Readiness.notReady("stopping").withTelemetry(stream);
        }
        if (telemetry.replicasBehind()) {
            return Readiness.notReady("replicas do not confirm writes (ACK_REPLICAS=" + ackReplicas
                    + "): packets are not acknowledged").withTelemetry(stream);
        }
        // A full stream is not this pod's fault: every replica shares it, and 503 everywhere would take
        // the whole Service away. It shows as the telemetry status and on the queue health and metrics.
        if (!instance.heartbeat().isFresh()) {
            return Readiness.notReady("heartbeat not renewed within two periods").withTelemetry(stream);
        }
        String streamFull = telemetry.health() == null ? null : telemetry.health().notAcknowledgingReason();
        return (streamFull == null ? Readiness.ok() : Readiness.readyWhile(streamFull)).withTelemetry(stream);
    }
}
