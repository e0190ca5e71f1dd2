package org.fleetpipe.teltonika.server.command;

import org.fleetpipe.teltonika.registry.RedisKeys;

/**
 * The keys of the command queues and of what devices say on their own (OPERATIONS.md, "Redis keys
 * written"), with the namespace in front; the scripts get them, or their prefixes, as arguments.
 */
public record CommandKeys(String namespace) {

    public CommandKeys(RedisKeys keys) {
        this(keys.namespace());
    }

    /** Hash of one command: text, codec, status, timestamps, history, reply. */
    public String command(String id) {
        return commandPrefix() + id;
    }

    public String commandPrefix() {
        return namespace + "command:";
    }

    /** List of command ids waiting for one device, oldest first. */
    public String commandQueue(String imei) {
        return commandQueuePrefix() + imei;
    }

    public String commandQueuePrefix() {
        return namespace + "commands:queue:";
    }

    /**
     * Sorted set of one device's recent command ids (score = when created): queued, in flight and
     * finished alike, the newest kept; expires with its newest command.
     */
    public String deviceCommands(String imei) {
        return namespace + "commands:device:" + imei;
    }

    /** Sorted set of IMEIs with queued commands (score = when the oldest was queued). */
    public String commandsQueued() {
        return namespace + "commands:queued";
    }

    /** Hash IMEI to command id: the commands one instance sent and awaits the reply of. */
    public String commandsInFlight(String instanceId) {
        return namespace + "commands:inflight:" + instanceId;
    }

    /** Set of instance ids that have commands in flight; the janitor walks it. */
    public String commandsInFlightInstances() {
        return namespace + "commands:inflight-instances";
    }

    /** Sorted set of failed and expired commands (score = when). */
    public String commandDeadLetters() {
        return namespace + "dlq:commands";
    }

    /** Stream of Codec 13 messages devices sent on their own. */
    public String deviceMessages() {
        return namespace + "device:messages";
    }
}
