package org.fleetpipe.teltonika.bridge.sink.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.fleetpipe.teltonika.bridge.sink.Outcome;
import org.junit.jupiter.api.Test;

/**
 * The Kafka answers the in-process broker cannot give without SASL and ACLs: authentication and
 * authorization refuse the bridge (retried), a record too large or invalid refuses the record.
 * KafkaBridgeIT covers the ones a real broker gives here (an invalid or unknown topic, too large).
 */
class KafkaSinkOutcomeTest {

    @Test
    void credentialsAndPermissions_refuseTheBridge_retriedNeverDeadLettered() {
        assertThat(KafkaSink.outcome(new SaslAuthenticationException("bad password")).kind())
                .isEqualTo(Outcome.Kind.REFUSING);
        assertThat(KafkaSink.outcome(new TopicAuthorizationException(Set.of("teltonika.records"))).kind())
                .isEqualTo(Outcome.Kind.REFUSING);
        assertThat(KafkaSink.outcome(new ClusterAuthorizationException("no idempotent write")).kind())
                .isEqualTo(Outcome.Kind.REFUSING);
        assertThat(KafkaSink.outcome(new UnknownTopicOrPartitionException("gone")).kind())
                .isEqualTo(Outcome.Kind.REFUSING);
    }

    @Test
    void timeoutsAndReplicas_areRetried() {
        assertThat(KafkaSink.outcome(new TimeoutException("not present in metadata")).kind())
                .isEqualTo(Outcome.Kind.RETRY);
        assertThat(KafkaSink.outcome(new NotEnoughReplicasException("isr")).kind()).isEqualTo(Outcome.Kind.RETRY);
    }

    @Test
    void aRecordTooLargeOrInvalid_isRefused() {
        assertThat(KafkaSink.outcome(new RecordTooLargeException("1 MB")).kind()).isEqualTo(Outcome.Kind.REJECTED);
        assertThat(KafkaSink.outcome(new InvalidRecordException("bad")).kind()).isEqualTo(Outcome.Kind.REJECTED);
    }
}
