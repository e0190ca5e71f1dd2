package org.fleetpipe.teltonika.server.parts;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import org.fleetpipe.teltonika.payload.IoDictionary;
import org.fleetpipe.teltonika.registry.InstanceEvent;
import org.fleetpipe.teltonika.registry.RedisKeys;
import org.fleetpipe.teltonika.server.command.CommandDispatcher;
import org.fleetpipe.teltonika.server.command.CommandExpiry;
import org.fleetpipe.teltonika.server.command.CommandHandBack;
import org.fleetpipe.teltonika.server.command.CommandReplies;
import org.fleetpipe.teltonika.server.command.CommandService;
import org.fleetpipe.teltonika.server.command.CommandStore;
import org.fleetpipe.teltonika.server.command.CommandSweep;
import org.fleetpipe.teltonika.server.command.DeadInstanceCommands;
import org.fleetpipe.teltonika.server.command.InFlightCheck;
import org.fleetpipe.teltonika.server.command.RedisCommandStore;
import org.fleetpipe.teltonika.server.command.ReplyWaiter;
import org.fleetpipe.teltonika.server.command.UnsolicitedMessages;
import org.fleetpipe.teltonika.server.config.ServerSettings;
import org.fleetpipe.teltonika.server.devices.DeviceModels;
import org.fleetpipe.teltonika.server.devices.ModelFromGetver;

/**
 * Operator commands: the store, the dispatcher that sends them to the devices held here, the
 * service the API calls, the sweep that expires and wakes, and what a dead instance's commands
 * need from the janitor.
 */
public final class CommandPart implements Part {

    private final Shared shared;
    private final RedisPart redis;
    private final InstancePart instance;
    private final ThreadsPart threads;
    private CommandDispatcher dispatcher;
    private CommandService service;
    private CommandExpiry expiry;
    private CommandSweep sweep;
    private DeadInstanceCommands deadInstanceCommands;

    public CommandPart(Shared shared, RedisPart redis, InstancePart instance, ThreadsPart threads) {
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
        CommandStore store = new RedisCommandStore(async, keys, instance.identity()::id, settings.commands(),
                settings.instance().heartbeatDeleteMeans());
        ReplyWaiter replies = new ReplyWaiter();
        dispatcher = new CommandDispatcher(store, shared.sessions(), settings.commands(), shared.metrics(),
                shared.pending(), new UnsolicitedMessages(settings.devices().hostile().maxDeviceMessagesPerMinute(),
                        settings.devices().hostile().maxDeviceMessageTextBytes()),
                settings.commands().modelFromGetver()
                        ? new ModelFromGetver(new DeviceModels(async, keys, IoDictionary.load()), shared.metrics())
                        : CommandReplies.NONE);
        service = new CommandService(store, replies);
        expiry = new CommandExpiry(async, keys, settings.commands(), shared.metrics(), settings.redis().commandTimeout());
        deadInstanceCommands = new DeadInstanceCommands(async, keys, new CommandHandBack(async, keys,
                settings.commands().deadLetterMaxEntries(), settings.commands().retention()),
                settings.janitor().scanCount(), settings.redis().commandTimeout(), shared.metrics());
        instance.events().on(InstanceEvent.COMMAND, dispatcher::wake).on(InstanceEvent.REPLY, replies::finished);
        // A send's own timer ends it at the reply timeout; its finish may take up to a call timeout more.
        Duration inFlightLimit = settings.commands().replyTimeout()
                .plus(settings.redis().commandTimeout().multipliedBy(2));
        CommandHandBack handBack = new CommandHandBack(async, keys, settings.commands().deadLetterMaxEntries(),
                settings.commands().retention());
        InFlightCheck inFlight = new InFlightCheck(async, keys, instance.identity()::id, handBack, shared.metrics(),
                inFlightLimit, settings.janitor().scanCount(), settings.redis().commandTimeout());
        sweep = new CommandSweep(expiry, inFlight, dispatcher::wake, settings.commands(),
                settings.redis().commandTimeout(), threads.jobs());
        sweep.start();
    }

    CommandDispatcher dispatcher() {
        return dispatcher;
    }

    CommandService service() {
        return service;
    }

    /** What the purge uses to fail commands nobody will deliver. */
    CommandExpiry expiry() {
        return expiry;
    }

    /** What the janitor does with the commands a dead instance left behind. */
    DeadInstanceCommands deadInstanceCommands() {
        return deadInstanceCommands;
    }

    @Override
    public void stop(StopStage stage, StopBudget budget) {
        if (stage == StopStage.STOP_JOBS && sweep != null) {
            sweep.close();
        }
    }
}
