package org.fleetpipe.teltonika.bridge.sink.mqtt;

import com.hivemq.client.mqtt.exceptions.MqttEncodeException;
import com.hivemq.client.mqtt.exceptions.MqttSessionExpiredException;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAckReturnCode;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5DisconnectException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.disconnect.Mqtt5DisconnectReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import java.util.Set;
import org.fleetpipe.teltonika.bridge.sink.Outcome;

/**
 * What the broker's answers mean for a record: a PUBACK reason code (MQTT 5), a publish that failed
 * in the client, a connect the broker refused. Only what concerns the record itself is a refusal of
 * the record; anything that would refuse every record alike refuses the bridge, retried until fixed.
 */
final class MqttAnswers {

    /** CONNACK codes that refuse the bridge's configuration (credentials, client id, version, address). */
    private static final Set<Mqtt5ConnAckReasonCode> CONNECT_REFUSALS = Set.of(
            Mqtt5ConnAckReasonCode.NOT_AUTHORIZED, Mqtt5ConnAckReasonCode.BAD_USER_NAME_OR_PASSWORD,
            Mqtt5ConnAckReasonCode.BANNED, Mqtt5ConnAckReasonCode.BAD_AUTHENTICATION_METHOD,
            Mqtt5ConnAckReasonCode.CLIENT_IDENTIFIER_NOT_VALID, Mqtt5ConnAckReasonCode.UNSUPPORTED_PROTOCOL_VERSION,
            Mqtt5ConnAckReasonCode.USE_ANOTHER_SERVER, Mqtt5ConnAckReasonCode.SERVER_MOVED);

    private MqttAnswers() {
    }

    /**
     * A PUBACK's reason code. Not authorized and an invalid topic would refuse every record (one
     * template makes every topic): the bridge is refused. Quota exceeded is a broker asking to slow
     * down, like HTTP 429; an unspecified or implementation-specific error says nothing about the
     * record: both retried. Only a payload format the broker refuses is the record's own fault.
     */
    static Outcome ofPubAck(Mqtt5PubAckReasonCode code, String reasonString) {
        String reason = "PUBACK " + code + " (0x" + Integer.toHexString(code.getCode()) + ")"
                + (reasonString == null || reasonString.isEmpty() ? "" : ": " + reasonString);
        return switch (code) {
            case SUCCESS, NO_MATCHING_SUBSCRIBERS -> Outcome.DELIVERED;
            case NOT_AUTHORIZED, TOPIC_NAME_INVALID -> Outcome.refusing(reason);
            case PAYLOAD_FORMAT_INVALID -> Outcome.rejected(reason);
            case UNSPECIFIED_ERROR, IMPLEMENTATION_SPECIFIC_ERROR, PACKET_IDENTIFIER_IN_USE, QUOTA_EXCEEDED ->
                    Outcome.retry(reason);
        };
    }

    /** A publish that did not end in a PUBACK without error. */
    static Outcome ofFailure(Throwable failure) {
        if (failure instanceof Mqtt5PubAckException pubAck) {
            return ofPubAck(pubAck.getMqttMessage().getReasonCode(),
                    pubAck.getMqttMessage().getReasonString().map(Object::toString).orElse(null));
        }
        if (failure instanceof MqttEncodeException) {
            // The client checks the broker's maximum packet size (MQTT 5 CONNACK) before sending.
            return Outcome.rejected("packet too large for the broker: " + describe(failure));
        }
        if (failure instanceof MqttSessionExpiredException
                && failure.getCause() instanceof Mqtt5DisconnectException disconnect
                && disconnect.getMqttMessage().getReasonCode() == Mqtt5DisconnectReasonCode.NOT_AUTHORIZED) {
            return Outcome.refusing("connection closed by the broker: " + describe(disconnect));
        }
        // Connection lost (the client's session ended with it), not connected, or anything else: again.
        return Outcome.retry(describe(failure));
    }

    /**
     * Whether a failed connect is the broker refusing the bridge itself, not an outage. A CONNACK
     * the client cannot read is one: a broker without MQTT 5 (Moquette 0.17) answers an MQTT 5
     * CONNECT with a 3.1.1 refusal code, which is malformed in MQTT 5.
     */
    static boolean refusesTheBridge(Throwable connectFailure) {
        if (connectFailure instanceof Mqtt5DisconnectException disconnect) {
            Mqtt5DisconnectReasonCode code = disconnect.getMqttMessage().getReasonCode();
            return code == Mqtt5DisconnectReasonCode.MALFORMED_PACKET
                    || code == Mqtt5DisconnectReasonCode.PROTOCOL_ERROR;
        }
        if (connectFailure instanceof Mqtt5ConnAckException connAck) {
            return CONNECT_REFUSALS.contains(connAck.getMqttMessage().getReasonCode());
        }
        if (connectFailure instanceof Mqtt3ConnAckException connAck) {
            Mqtt3ConnAckReturnCode code = connAck.getMqttMessage().getReturnCode();
            return code.isError() && code != Mqtt3ConnAckReturnCode.SERVER_UNAVAILABLE;
        }
        return false;
    }

    static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder(failure.getClass().getSimpleName()).append(": ")
                .append(failure.getMessage());
        Throwable cause = failure.getCause();
        if (cause != null && cause != failure && cause.getMessage() != null
                && !String.valueOf(failure.getMessage()).contains(cause.getMessage())) {
            text.append(": ").append(failure.getCause().getMessage());
        }
        return text.toString();
    }
}
