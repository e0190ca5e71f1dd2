package org.fleetpipe.teltonika.server.admission;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.redis.Blocking;
import org.fleetpipe.teltonika.redis.PeriodicJobs;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.session.SessionTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Periodically closes connections held here whose IMEI is on {@code devices:denied} or, with
 * {@code DEVICE_ADMISSION=allow-list}, no longer on {@code devices:allowed}. The 'deny' or
 * 'revoke' message that normally cuts such a device off is a hint and can be lost (this instance's
 * pub/sub connection was down when it was published), and a change made in Redis directly sends
 * none. The check asks for the IMEIs held here, a chunk per SMISMEMBER, so its cost follows the
 * connections held, not the size of the lists.
 */
public final class RevocationSweeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RevocationSweeper.class);
    static final int CHUNK = 1000;

    private final SessionTable sessions;
    private final RedisClusterAsyncCommands<String, String> redis;
    private final AdmissionKeys admissionKeys;
    private final AdmissionMode mode;
    private final Duration interval;
    private final Duration timeout;
    private final PeriodicJobs jobs;
    private PeriodicJobs.Job job;
    private volatile boolean closed;

    public RevocationSweeper(SessionTable sessions, RedisClusterAsyncCommands<String, String> redis, RedisKeys keys,
                             AdmissionMode mode, Duration interval, Duration timeout, PeriodicJobs jobs) {
        this.sessions = sessions;
        this.redis = redis;
        this.admissionKeys = new AdmissionKeys(keys);
        this.mode = mode;
        this.interval = interval;
        this.timeout = timeout;
        this.jobs = jobs;
    }

    /** Starts the periodic check; the first one comes after a random part of the interval. */
    public void start() {
        job = jobs.start("revocation-sweep", PeriodicJobs.randomPartOf(interval), interval, this::sweepQuietly);
    }

    private void sweepQuietly() {
        try {
            int closed = sweep();
            if (closed > 0) {
                LOG.warn("closed {} connection(s) of devices on devices:denied{} that no message had cut off", closed,
                        mode == AdmissionMode.ALLOW_LIST ? " or off devices:allowed" : "");
            }
        } catch (RuntimeException e) {
            if (!closed) {
                LOG.warn("admission check of the connected devices failed; next try in {} s: {}",
                        interval.toSeconds(), e.toString());
            }
        }
    }

    /** One pass, on the caller's thread (it blocks: never an event loop). Returns the connections it closed. */
    public int sweep() {
        List<Map.Entry<Imei, Channel>> held = new ArrayList<>(sessions.snapshot().entrySet());
        int closed = 0;
        for (int from = 0; from < held.size(); from += CHUNK) {
            List<Map.Entry<Imei, Channel>> chunk = held.subList(from, Math.min(held.size(), from + CHUNK));
            String[] imeis = new String[chunk.size()];
            for (int i = 0; i < imeis.length; i++) {
                imeis[i] = chunk.get(i).getKey().value();
            }
            // Both asked before either answer is awaited: one round trip.
            CompletionStage<List<Boolean>> deniedAnswer = redis.smismember(admissionKeys.deniedDevices(), imeis);
            CompletionStage<List<Boolean>> allowedAnswer = mode == AdmissionMode.ALLOW_LIST
                    ? redis.smismember(admissionKeys.allowedDevices(), imeis)
                    : CompletableFuture.completedFuture(Collections.nCopies(imeis.length, true));
            List<Boolean> denied = Blocking.await(deniedAnswer, timeout);
            List<Boolean> allowed = Blocking.await(allowedAnswer, timeout);
            for (int i = 0; i < imeis.length; i++) {
                Channel channel = chunk.get(i).getValue();
                String refusal = denied.get(i) ? "denied" : allowed.get(i) ? null : "not-allowed";
                if (refusal != null && channel.isActive() && sessions.channelOf(chunk.get(i).getKey()) == channel
                        && Revocation.close(channel, refusal, "by the periodic check")) {
                    closed++;
                }
            }
        }
        return closed;
    }

    @Override
    public void close() {
        closed = true;
        if (job != null) {
            job.stop();
        }
    }
}
