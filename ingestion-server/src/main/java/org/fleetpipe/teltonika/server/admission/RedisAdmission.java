package org.fleetpipe.teltonika.server.admission;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.RedisKeys;

/**
 * Admission by the Redis sets {@code devices:denied} and {@code devices:allowed}, read at every
 * login, so a change applies to the next login on every replica without a restart.
 */
public final class RedisAdmission implements Admission {

    private final RedisClusterAsyncCommands<String, String> redis;
    private final AdmissionKeys admissionKeys;
    private final AdmissionMode mode;

    public RedisAdmission(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, AdmissionMode mode) {
        this.redis = redis;
        this.admissionKeys = new AdmissionKeys(keys);
        this.mode = mode;
    }

    @Override
    public CompletionStage<String> refusal(Imei imei) {
        CompletionStage<Boolean> denied = redis.sismember(admissionKeys.deniedDevices(), imei.value());
        CompletionStage<Boolean> allowed = mode == AdmissionMode.ALLOW_LIST
                ? redis.sismember(admissionKeys.allowedDevices(), imei.value())
                : CompletableFuture.completedFuture(true);
        return denied.thenCombine(allowed, (isDenied, isAllowed) -> isDenied ? "denied"
                : isAllowed ? null : "not-allowed");
    }
}
