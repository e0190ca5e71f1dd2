package org.fleetpipe.teltonika.bridge.sink.mqtt;

import static org.assertj.core.api.Assertions.assertThat;

import com.hivemq.client.mqtt.exceptions.ConnectionClosedException;
import com.hivemq.client.mqtt.exceptions.MqttClientStateException;
import com.hivemq.client.mqtt.exceptions.MqttEncodeException;
import com.hivemq.client.mqtt.exceptions.MqttSessionExpiredException;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import java.util.EnumMap;
import java.util.Map;
import org.fleetpipe.teltonika.bridge.sink.Outcome;
import org.junit.jupiter.api.Test;

/** Every MQTT 5 PUBACK reason code, and the client's own failures, as the outcome a lane acts on. */
class MqttAnswersTest {

    @Test
    void everyPubAckReasonCode_refusingTheBridge_orThisRecord_orAskingForARetry() {
        Map<Mqtt5PubAckReasonCode, Outcome.Kind> expected = new EnumMap<>(Mqtt5PubAckReasonCode.class);
        expected.put(Mqtt5PubAckReasonCode.SUCCESS, Outcome.Kind.DELIVERED);
        expected.put(Mqtt5PubAckReasonCode.NO_MATCHING_SUBSCRIBERS, Outcome.Kind.DELIVERED);
        expected.put(Mqtt5PubAckReasonCode.NOT_AUTHORIZED, Outcome.Kind.REFUSING);
        expected.put(Mqtt5PubAckReasonCode.TOPIC_NAME_INVALID, Outcome.Kind.REFUSING);
        expected.put(Mqtt5PubAckReasonCode.QUOTA_EXCEEDED, Outcome.Kind.RETRY);
        expected.put(Mqtt5PubAckReasonCode.UNSPECIFIED_ERROR, Outcome.Kind.RETRY);
        expected.put(Mqtt5PubAckReasonCode.IMPLEMENTATION_SPECIFIC_ERROR, Outcome.Kind.RETRY);
        expected.put(Mqtt5PubAckReasonCode.PACKET_IDENTIFIER_IN_USE, Outcome.Kind.RETRY);
        expected.put(Mqtt5PubAckReasonCode.PAYLOAD_FORMAT_INVALID, Outcome.Kind.REJECTED);

        assertThat(expected).hasSize(Mqtt5PubAckReasonCode.values().length);
        expected.forEach((code, kind) -> assertThat(MqttAnswers.ofPubAck(code, null).kind()).as(code.name())
                .isEqualTo(kind));
        assertThat(MqttAnswers.ofPubAck(Mqtt5PubAckReasonCode.NOT_AUTHORIZED, "acl denies teltonika/#").reason())
                .isEqualTo("PUBACK NOT_AUTHORIZED (0x87): acl denies teltonika/#");
    }

    @Test
    void aPacketTooLargeForTheBroker_isThisRecordsRefusal_aLostConnectionOrNoneIsARetry() {
        assertThat(MqttAnswers.ofFailure(new MqttEncodeException("PUBLISH exceeded maximum packet size")).kind())
                .isEqualTo(Outcome.Kind.REJECTED);
        assertThat(MqttAnswers.ofFailure(new MqttSessionExpiredException("Session expired as connection was closed.",
                new ConnectionClosedException("Server closed connection without DISCONNECT."))).kind())
                .isEqualTo(Outcome.Kind.RETRY);
        assertThat(MqttAnswers.ofFailure(new MqttClientStateException("MQTT client is not connected.")).kind())
                .isEqualTo(Outcome.Kind.RETRY);
        assertThat(MqttAnswers.refusesTheBridge(new ConnectionClosedException("refused"))).isFalse();
    }
}
