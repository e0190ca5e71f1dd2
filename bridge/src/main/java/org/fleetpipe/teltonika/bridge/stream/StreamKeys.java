package org.fleetpipe.teltonika.bridge.stream;

/** The Redis keys a bridge reads and writes, with the servers' {@code REDIS_NAMESPACE} in front. */
public record StreamKeys(String namespace, String group) {

    public String telemetry() {
        return namespace + "telemetry";
    }

    /** The bridge's dead-letter stream: one per group, so two sinks never mix their refusals. */
    public String deadLetters() {
        return namespace + "dlq:bridge:" + group;
    }

    /** IMEI to device model, written by the servers' device-model API. */
    public String deviceModels() {
        return namespace + "devices:models";
    }
}
