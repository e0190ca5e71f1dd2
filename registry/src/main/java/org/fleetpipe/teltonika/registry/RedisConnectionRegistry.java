package org.fleetpipe.teltonika.registry;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;

/** {@link ConnectionRegistry} on the Redis hash, with the multi-step updates as Lua scripts. */
public final class RedisConnectionRegistry implements ConnectionRegistry {

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;
    private final InstanceIdentity identity;
    private final String deviceInfoTtlMillis;
    private final String deviceInfoTtlBeforeRecordsMillis;

    /** {@code device:info:{imei}} lives {@code deviceInfoTtl} after each login. */
    public RedisConnectionRegistry(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, InstanceIdentity identity,
                                   Duration deviceInfoTtl) {
        this(redis, keys, identity, deviceInfoTtl, deviceInfoTtl);
    }

    /**
     * As above, but a login of a device that has not stored a record yet (no {@code last_record_at})
     * gives its hash only {@code beforeRecords}: logins with made-up IMEIs leave no long-lived keys.
     */
    public RedisConnectionRegistry(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, InstanceIdentity identity,
                                   Duration deviceInfoTtl, Duration beforeRecords) {
        this.redis = redis;
        this.keys = keys;
        this.identity = identity;
        this.deviceInfoTtlMillis = Long.toString(deviceInfoTtl.toMillis());
        this.deviceInfoTtlBeforeRecordsMillis = Long.toString(beforeRecords.toMillis());
    }

    @Override
    public CompletionStage<String> claim(Imei imei, String remoteAddress, String session) {
        return RegistryScripts.CLAIM.call(redis, ScriptOutputType.VALUE,
                new String[] {keys.registry(), keys.deviceInfo(imei.value())},
                imei.value(), identity.id(), keys.instanceEventsPrefix(), Long.toString(System.currentTimeMillis()),
                remoteAddress, deviceInfoTtlMillis, session, deviceInfoTtlBeforeRecordsMillis, InstanceEvent.TAKEOVER.verb());
    }

    @Override
    public CompletionStage<Boolean> releaseIfOwner(Imei imei, String session) {
        return RegistryScripts.RELEASE_IF_OWNER.<Long>call(redis, ScriptOutputType.INTEGER,
                new String[] {keys.registry(), keys.deviceInfo(imei.value())},
                imei.value(), identity.id(), session).thenApply(n -> n == 1L);
    }

    @Override
    public CompletionStage<Boolean> reclaim(Imei imei, String oldId, String newId) {
        return RegistryScripts.RECLAIM.<Long>call(redis, ScriptOutputType.INTEGER,
                new String[] {keys.registry(), keys.deviceInfo(imei.value())},
                imei.value(), oldId, newId).thenApply(n -> n == 1L);
    }

    @Override
    public CompletionStage<String> ownerOf(Imei imei) {
        return redis.hget(keys.registry(), imei.value());
    }
}
