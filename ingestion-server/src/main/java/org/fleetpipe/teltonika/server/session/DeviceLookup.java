package org.fleetpipe.teltonika.server.session;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.registry.RedisKeys;

/** Where a device is connected, read from the registry and its device-info hash. */
public final class DeviceLookup {

    /**
     * A connected device.
     *
     * @param instance       the instance that holds its connection
     * @param connectedSince epoch ms of its login, null when its info hash does not say
     * @param lastRecordAt   epoch ms of its newest record, null before the first
     */
    public record Location(String instance, Long connectedSince, String remote, Long lastRecordAt) {
    }

    private final RedisClusterAsyncCommands<String, String> redis;
    private final RedisKeys keys;

    public DeviceLookup(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys) {
        this.redis = redis;
        this.keys = keys;
    }

    /** Where {@code imei} is connected; empty when no instance holds it. */
    public CompletionStage<Optional<Location>> find(Imei imei) {
        return redis.hget(keys.registry(), imei.value()).thenCombine(redis.hgetall(keys.deviceInfo(imei.value())),
                (owner, info) -> owner == null ? Optional.<Location>empty()
                        : Optional.of(new Location(owner, number(info.get("connected_at")), info.get("remote"),
                                number(info.get("last_record_at")))));
    }

    private static Long number(String text) {
        return text == null ? null : Long.valueOf(text);
    }
}
