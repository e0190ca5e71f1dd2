package org.fleetpipe.teltonika.server.capture;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.registry.RedisKeys;

/** The captures in Redis as the device pipelines use them: one HGET per login, one script call per entry. */
public final class RedisCaptureSink implements CaptureSink {

    private final RedisClusterAsyncCommands<String, String> redis;
    private final CaptureKeys captureKeys;
    private final CaptureSettings settings;

    public RedisCaptureSink(RedisClusterAsyncCommands<String, String> redis, RedisKeys keys, CaptureSettings settings) {
        this.redis = redis;
        this.captureKeys = new CaptureKeys(keys);
        this.settings = settings;
    }

    @Override
    public CompletionStage<Long> activeUntil(String imei) {
        return redis.hget(captureKeys.captureActive(imei), "until").thenApply(until -> until == null ? null
                : Long.valueOf(until));
    }

    @Override
    public CompletionStage<Appended> append(String imei, CaptureEntry entry) {
        return CaptureScripts.APPEND.<Long>call(redis, ScriptOutputType.INTEGER,
                new String[] {captureKeys.captureActive(imei), captureKeys.capture(imei), captureKeys.capturesActive()},
                imei, Long.toString(entry.at()), entry.dir(), entry.hex(), entry.outcome(),
                Long.toString(CaptureSettings.entryCost(entry.hex(), entry.outcome())),
                Long.toString(settings.maxBytes()), Long.toString(settings.streamMaxEntries()),
                Long.toString(settings.retention().toMillis()))
                .thenApply(n -> n == 1L ? Appended.STORED : n == -1L ? Appended.CAPPED : Appended.INACTIVE);
    }
}
