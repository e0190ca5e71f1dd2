package org.fleetpipe.teltonika.bridge.sink.mqtt;

import com.hivemq.client.mqtt.datatypes.MqttTopic;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.fleetpipe.teltonika.bridge.sink.OutboundRecord;
import org.fleetpipe.teltonika.bridge.sink.Outcome;
import org.fleetpipe.teltonika.bridge.sink.Sink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes each record at QoS 1 to its device's topic (the template with {@code {imei}} replaced),
 * on the HiveMQ MQTT client, MQTT 3.1.1 or 5; the broker's PUBACK delivers it. No connection, a lost
 * connection or no PUBACK within the timeout ask for a retry, and so does a connect the broker
 * refuses (bad credentials, not authorized: the sink is refusing, retried until fixed); a topic MQTT
 * cannot publish to, a payload over {@code --mqtt-max-payload}, or an MQTT 5 PUBACK refusing the
 * payload refuses the record ({@link MqttAnswers} has the whole mapping).
 *
 * <p>The client reconnects by itself (its automatic reconnect, 0.5 s doubling to 10 s) and keeps to
 * the send maximum (ours, and for MQTT 5 the broker's receive maximum), queueing publishes beyond it.
 *
 * <p>Order: all lanes publish on one connection, and the client writes publishes in call order on
 * it, so on one connection the records a broker took are a prefix of those a batch sent. A batch
 * therefore stops publishing at its first failure and never goes on over a newer connection: a
 * record lost with the old connection could otherwise be overtaken by a later one of its device.
 * The session ends with the connection; the client then fails what was in flight or queued, and
 * fails a publish made while no session is up (it does not hold it for the next connection).
 */
public final class MqttSink implements Sink {

    private static final Logger LOG = LoggerFactory.getLogger(MqttSink.class);

    private final String serverUri;
    private final String topicTemplate;
    private final int maxInFlight;
    private final Duration timeout;
    private final int maxPayload;
    private final MqttConnectionWatch watch;
    private final MqttPublisher publisher;
    private final AtomicBoolean started = new AtomicBoolean();
    /** Publishes of batches that gave up waiting for their PUBACK, still in the client. */
    private final AtomicInteger abandoned = new AtomicInteger();

    /**
     * @param version 5 for MQTT 5, 3 for MQTT 3.1.1
     */
    public MqttSink(String serverUri, String clientId, String topicTemplate, String username, char[] password,
                    int maxInFlight, Duration timeout, int maxPayload, int version) {
        this.serverUri = serverUri;
        this.topicTemplate = topicTemplate;
        this.maxInFlight = maxInFlight;
        this.timeout = timeout;
        this.maxPayload = maxPayload;
        this.watch = new MqttConnectionWatch(serverUri, clientId);
        this.publisher = MqttPublisher.create(new MqttPublisher.Options(URI.create(serverUri), clientId, username,
                password, version, maxInFlight, timeout), watch);
    }

    @Override
    public String name() {
        return "mqtt";
    }

    @Override
    public List<Outcome> deliver(List<OutboundRecord> batch) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Outcome[] outcomes = new Outcome[batch.size()];
        if (started.compareAndSet(false, true)) {
            // Connected on first use, not when built (a redrive or a check at start builds it too).
            // A failed first connect is the client's to retry, like a lost connection.
            publisher.connect().whenComplete((ignored, failure) -> { });
        }
        long connection = watch.awaitConnected(deadline);
        if (connection == 0) {
            String reason = "not connected to " + serverUri + ": " + watch.lastFailure();
            // Refused credentials or permission: retried like an outage, but it needs someone to fix it.
            Arrays.fill(outcomes, watch.refused() ? Outcome.refusing(reason) : Outcome.retry(reason));
            return List.of(outcomes);
        }
        int stale = abandoned.get();
        if (stale >= maxInFlight) {
            // A broker that keeps the connection but stops acknowledging: do not pile up more.
            Arrays.fill(outcomes, Outcome.retry(stale + " publishes of earlier batches still await their PUBACK"));
            return List.of(outcomes);
        }
        @SuppressWarnings("unchecked")
        CompletableFuture<?>[] publishes = new CompletableFuture[batch.size()];
        int landed = 0;
        for (int i = 0; i < batch.size(); i++) {
            OutboundRecord record = batch.get(i);
            MqttTopic topic;
            try {
                topic = MqttTopic.of(topicTemplate.replace("{imei}", record.imei()));
            } catch (IllegalArgumentException e) {
                outcomes[i] = Outcome.rejected("topic for imei '" + record.imei() + "': " + e.getMessage());
                continue;
            }
            if (record.json().length > maxPayload) {
                // MQTT 3.1.1 cannot refuse one message: a broker drops the connection over it, and
                // sent again it would stop its device's records for good.
                outcomes[i] = Outcome.rejected("payload of " + record.json().length
                        + " bytes is over --mqtt-max-payload " + maxPayload);
                continue;
            }
            while (landed < i && (publishes[landed] == null || isDone(publishes[landed]))) {
                landed++;
            }
            String stop = stopReason(connection, publishes, landed, i);
            if (stop != null) {
                fillRetry(outcomes, i, stop);
                break;
            }
            publishes[i] = publisher.publish(topic, record.json());
        }
        for (int i = 0; i < publishes.length; i++) {
            if (publishes[i] != null) {
                outcomes[i] = await(publishes[i], deadline);
            }
        }
        return List.of(outcomes);
    }

    private static boolean isDone(CompletableFuture<?> publish) {
        return publish.isDone() && !publish.isCompletedExceptionally();
    }

    /**
     * Why the batch must not publish its record {@code next}, or null; records before
     * {@code landed} were PUBACKed. The client fails the open publishes of a lost connection
     * (its session ends with it) before its reconnect can make a new one, so a batch whose earlier
     * record went down with a connection stops here and cannot go on over the next one.
     */
    private String stopReason(long connection, CompletableFuture<?>[] publishes, int landed, int next) {
        for (int j = landed; j < next; j++) {
            if (publishes[j] != null && publishes[j].isCompletedExceptionally()) {
                return "an earlier record of the batch failed: " + failureOf(publishes[j]).reason();
            }
        }
        if (!watch.isCurrent(connection)) {
            return "connection to " + serverUri + " lost during the batch";
        }
        return null;
    }

    private Outcome await(CompletableFuture<?> publish, long deadline) throws InterruptedException {
        try {
            publish.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return Outcome.DELIVERED;
        } catch (TimeoutException e) {
            abandoned.incrementAndGet();
            publish.whenComplete((ignored, failure) -> abandoned.decrementAndGet());
            return Outcome.retry("no PUBACK within " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            return MqttAnswers.ofFailure(e.getCause());
        }
    }

    private static Outcome failureOf(CompletableFuture<?> failed) {
        try {
            failed.getNow(null);
            return Outcome.DELIVERED;
        } catch (java.util.concurrent.CompletionException e) {
            return MqttAnswers.ofFailure(e.getCause() == null ? e : e.getCause());
        } catch (java.util.concurrent.CancellationException e) {
            return Outcome.retry("cancelled");
        }
    }

    private static void fillRetry(Outcome[] outcomes, int from, String reason) {
        Outcome retry = Outcome.retry(reason);
        for (int i = from; i < outcomes.length; i++) {
            if (outcomes[i] == null) {
                outcomes[i] = retry;
            }
        }
    }

    @Override
    public void close() {
        watch.close();
        if (!started.get()) {
            return;
        }
        try {
            publisher.disconnect().get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // Not connected (reconnecting, or never was): the watch stops the client's next attempt.
            LOG.debug("sink=mqtt disconnect: {}", e.toString());
        }
    }
}
