package org.fleetpipe.teltonika.server.parts;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.fleetpipe.teltonika.registry.InstanceEvent;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.admission.AdmissionLists;
import org.fleetpipe.teltonika.server.admission.AdmissionMode;
import org.fleetpipe.teltonika.server.admission.NewImeiLimit;
import org.fleetpipe.teltonika.server.admission.RedisAdmission;
import org.fleetpipe.teltonika.server.admission.RefusalLog;
import org.fleetpipe.teltonika.server.admission.RevocationListener;
import org.fleetpipe.teltonika.server.admission.RevocationSweeper;
import org.fleetpipe.teltonika.server.admission.TcpKnownImeis;
import org.fleetpipe.teltonika.server.admission.TcpSessionNetworks;
import org.fleetpipe.teltonika.server.admission.UdpAdmission;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.udp.UdpAdmissionGate;

/** Which devices may log in: the allow- and deny-lists, the new-IMEI limit, and cutting off those revoked. */
public final class AdmissionPart implements Part {

    private final Shared shared;
    private final RedisPart redis;
    private final InstancePart instance;
    private final ThreadsPart threads;
    private RedisAdmission admission;
    private NewImeiLimit newImeis;
    private RefusalLog refusals;
    private RevocationSweeper sweeper;

    public AdmissionPart(Shared shared, RedisPart redis, InstancePart instance, ThreadsPart threads) {
        this.shared = shared;
        this.redis = redis;
        this.instance = instance;
        this.threads = threads;
    }

    @Override
    public void start() {
        ServerSettings settings = shared.settings();
        RedisKeys keys = redis.keys();
        RedisClusterAsyncCommands<String, String> async = redis.async();
        admission = new RedisAdmission(async, keys, settings.devices().admission());
        RevocationListener revocations = new RevocationListener(shared.sessions(), admission);
        instance.events().on(InstanceEvent.DENY, revocations).on(InstanceEvent.REVOKE, revocations);
        // In allow-list mode every IMEI that gets in was vetted: nothing new to limit.
        newImeis = settings.devices().admission() == AdmissionMode.OPEN
                ? new NewImeiLimit(settings.devices().hostile().maxNewImeisPerAddressPerMinute(),
                        settings.devices().hostile().maxNewImeisBurstPerAddress(), NewImeiLimit.knownIn(async,
                        redis.ingestKeys()),
                        System::nanoTime)
                : NewImeiLimit.OFF;
        refusals = new RefusalLog(settings.devices().refusalLogInterval());
        sweeper = new RevocationSweeper(shared.sessions(), async, keys, settings.devices().admission(),
                settings.devices().denySweepInterval(), settings.redis().commandTimeout(), threads.jobs());
        sweeper.start();
    }

    RedisAdmission admission() {
        return admission;
    }

    NewImeiLimit newImeis() {
        return newImeis;
    }

    RefusalLog refusals() {
        return refusals;
    }

    /**
     * In open mode with UDP_ADMISSION=tcp-known, only IMEIs that logged in over TCP; with tcp-network,
     * only from their TCP session's network; the allow-list decides otherwise.
     */
    UdpAdmissionGate udpGate() {
        ServerSettings settings = shared.settings();
        UdpAdmission udp = settings.devices().admission() == AdmissionMode.OPEN
                ? settings.devices().hostile().udpAdmission() : UdpAdmission.ANY;
        return new UdpAdmissionGate(admission,
                udp == UdpAdmission.TCP_KNOWN ? new TcpKnownImeis(TcpKnownImeis.deviceInfoIn(redis.async(),
                        redis.keys())) : null,
                udp == UdpAdmission.TCP_NETWORK ? new TcpSessionNetworks(TcpSessionNetworks.remoteIn(redis.async(),
                        redis.keys())) : null,
                newImeis);
    }

    /** The lists as the operator API changes them. */
    AdmissionLists lists() {
        return new AdmissionLists(redis.async(), redis.keys());
    }

    @Override
    public void stop(StopStage stage, StopBudget budget) {
        if (stage == StopStage.STOP_JOBS && sweeper != null) {
            sweeper.close();
        }
    }
}
