package org.fleetpipe.teltonika.bridge.sink.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.fleetpipe.teltonika.bridge.sink.OutboundRecord;
import org.fleetpipe.teltonika.bridge.sink.Outcome;
import org.fleetpipe.teltonika.bridge.sink.Sink;

/**
 * Produces each record to one topic, keyed by IMEI so a device's records stay in order in one
 * partition, with {@code acks=all} and idempotence: a record counts as delivered once every
 * in-sync replica has it, and the producer's own retries cannot reorder or double it. A record the
 * broker can never take (too large, invalid) is refused; authentication, authorization, an invalid
 * or unknown topic say the cluster does not accept the bridge: retried until fixed, as timeouts are.
 */
public final class KafkaSink implements Sink {

    private final KafkaProducer<String, byte[]> producer;
    private final String topic;

    public KafkaSink(String bootstrapServers, String topic, Map<String, String> extraProperties) {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        properties.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, "teltonika-bridge");
        // Operators may tune (SASL, TLS, compression, timeouts) but not weaken what "delivered" means.
        properties.putAll(extraProperties);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        this.producer = new KafkaProducer<>(properties, new StringSerializer(), new ByteArraySerializer());
        this.topic = topic;
    }

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public List<Outcome> deliver(List<OutboundRecord> batch) throws InterruptedException {
        List<Future<?>> sent = new ArrayList<>(batch.size());
        for (OutboundRecord record : batch) {
            Future<?> future;
            try {
                future = producer.send(new ProducerRecord<>(topic, record.imei(), record.json()));
            } catch (RuntimeException e) {
                future = CompletableFuture.failedFuture(e);
            }
            sent.add(future);
            // A send failed at once: a record it can never take (too large), or, after waiting for
            // metadata for max.block.ms, Kafka unreachable or the topic missing. The rest would
            // wait as long, each: the lane sends them again after its back-off instead.
            Throwable failed = failureOf(future);
            if (failed != null && outcome(failed).isRetry()) {
                while (sent.size() < batch.size()) {
                    sent.add(future);
                }
                break;
            }
        }
        List<Outcome> outcomes = new ArrayList<>(batch.size());
        for (Future<?> future : sent) {
            try {
                future.get();
                outcomes.add(Outcome.DELIVERED);
            } catch (ExecutionException e) {
                outcomes.add(outcome(e.getCause()));
            }
        }
        return outcomes;
    }

    /** The failure of a send already settled, or null (pending, or succeeded). */
    private static Throwable failureOf(Future<?> future) {
        if (!future.isDone()) {
            return null;
        }
        try {
            future.get();
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException | java.util.concurrent.CancellationException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return null;
        }
    }

    static Outcome outcome(Throwable failure) {
        String reason = failure.getClass().getSimpleName() + ": " + failure.getMessage();
        if (failure instanceof RecordTooLargeException || failure instanceof InvalidRecordException
                || failure instanceof SerializationException) {
            return Outcome.rejected(reason);
        }
        if (failure instanceof AuthenticationException || failure instanceof AuthorizationException
                || failure instanceof InvalidTopicException || failure instanceof UnknownTopicOrPartitionException) {
            // Every record would get the same answer until someone fixes the credentials, the ACLs
            // or the topic: retried meanwhile, nothing dead-lettered.
            return Outcome.refusing(reason);
        }
        // Timeouts (a topic missing from the metadata too), a leader moving, not enough replicas: try again.
        return Outcome.retry(reason);
    }

    @Override
    public void close() {
        producer.close(java.time.Duration.ofSeconds(5));
    }
}
