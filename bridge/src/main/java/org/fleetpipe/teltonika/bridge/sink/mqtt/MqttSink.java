package org.fleetpipe.teltonika.bridge.sink.mqtt;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.paho.client.mqttv3.IMqttActionListener;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.IMqttToken;
import org.eclipse.paho.client.mqttv3.MqttAsyncClient;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.MqttTopic;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.fleetpipe.teltonika.bridge.sink.OutboundRecord;
import org.fleetpipe.teltonika.bridge.sink.Outcome;
import org.fleetpipe.teltonika.bridge.sink.Sink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes each record at QoS 1 to its device's topic (the template with {@code {imei}} replaced);
 * the broker's PUBACK delivers it. No connection, a lost connection or no PUBACK within the timeout
 * ask for a retry, and so does a connect the broker refuses (bad credentials, not authorized: the
 * sink is refusing, retried until fixed); a topic MQTT cannot publish to, or a payload over the
 * broker's limit ({@code --mqtt-max-payload}), refuses the record.
 *
 * <p>Order: all lanes publish on one connection, and Paho writes publishes in call order on it, the
 * broker reads them in that order, so on one connection the records a broker took are a prefix of
 * those a batch sent. A batch therefore stops publishing at its first failure and never goes on
 * over a newer connection: a record lost with the old connection could otherwise be overtaken by a
 * later one of its device. The lane sends the failed record and the device's later ones again.
 *
 * <p>Clean session: the broker keeps nothing for the bridge between connections and Paho forgets
 * unacknowledged publishes when the connection drops; what was not PUBACKed is not acknowledged in
 * the stream, and the lane sends it again. The client reconnects when a batch finds it disconnected,
 * one connect at a time, instead of Paho's automatic reconnect, which never retries a failed first
 * connect and leaves its timer thread running after close.
 */
public final class MqttSink implements Sink {

    private static final Logger LOG = LoggerFactory.getLogger(MqttSink.class);
    private static final int AT_LEAST_ONCE = 1;
    /**
     * Paho's own in-flight cap sits a little above ours: it counts a PUBACK a moment after our
     * listener released the room, and a publish it refuses for that costs a message id it takes
     * before checking (given back only on the next clean connect).
     */
    private static final int PAHO_SLACK = 64;

    private final MqttAsyncClient client;
    private final MqttConnectOptions options;
    private final String serverUri;
    private final String clientId;
    private final String topicTemplate;
    private final int maxInFlight;
    private final Duration timeout;
    private final int maxPayload;
    private final ReentrantLock connecting = new ReentrantLock();
    /** The connect in progress or done last; guarded by {@link #connecting}. */
    private IMqttToken lastConnect;
    private volatile Connection connection;
    private long connections;
    private volatile String lastConnectFailure = "no connect yet";
    /** Whether the broker answered the last connect with bad credentials or not authorized. */
    private volatile boolean connectRefused;
    /** The connect failure logged last and when; guarded by {@link #connecting}. */
    private String loggedFailure;
    private long loggedFailureAt;

    /** One connection to the broker: the connect that made it and its room for unacknowledged publishes. */
    private record Connection(IMqttToken connect, long number, Semaphore room) {}

    public MqttSink(String serverUri, String clientId, String topicTemplate, String username, char[] password,
                    int maxInFlight, Duration timeout, int maxPayload) {
        this.maxPayload = maxPayload;
        this.serverUri = serverUri;
        this.clientId = clientId;
        this.topicTemplate = topicTemplate;
        this.maxInFlight = maxInFlight;
        this.timeout = timeout;
        this.options = new MqttConnectOptions();
        options.setCleanSession(true);
        options.setAutomaticReconnect(false);
        options.setMaxInflight(Math.min(65_535, maxInFlight + PAHO_SLACK));
        options.setConnectionTimeout((int) Math.max(1, timeout.toSeconds()));
        options.setKeepAliveInterval(30);
        options.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        if (username != null) {
            options.setUserName(username);
        }
        if (password != null) {
            options.setPassword(password);
        }
        try {
            // In memory: nothing written to disk, and nothing to resume after a restart either way.
            this.client = new MqttAsyncClient(serverUri, clientId, new MemoryPersistence());
        } catch (MqttException e) {
            throw new IllegalArgumentException("--mqtt-url '" + serverUri + "': " + describe(e), e);
        }
        client.setCallback(new MqttCallback() {
            @Override
            public void connectionLost(Throwable cause) {
                LOG.warn("sink=mqtt connection lost server={} reason=\"{}\" (reconnecting with the next batch)",
                        serverUri, cause == null ? "" : cause.getMessage());
            }

            @Override
            public void messageArrived(String topic, MqttMessage message) {
                // The bridge subscribes to nothing.
            }

            @Override
            public void deliveryComplete(IMqttDeliveryToken token) {
                // Outcomes are read from each publish's own token.
            }
        });
    }

    @Override
    public String name() {
        return "mqtt";
    }

    @Override
    public List<Outcome> deliver(List<OutboundRecord> batch) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Outcome[] outcomes = new Outcome[batch.size()];
        Connection on = connected(deadline);
        if (on == null) {
            String reason = "not connected to " + serverUri + ": " + lastConnectFailure();
            // Refused credentials or permission: retried like an outage, but it needs someone to fix it.
            Arrays.fill(outcomes, connectRefused ? Outcome.refusing(reason) : Outcome.retry(reason));
            return List.of(outcomes);
        }
        IMqttDeliveryToken[] tokens = new IMqttDeliveryToken[batch.size()];
        int landed = 0;
        for (int i = 0; i < batch.size(); i++) {
            OutboundRecord record = batch.get(i);
            String topic = topicTemplate.replace("{imei}", record.imei());
            try {
                MqttTopic.validate(topic, false);
            } catch (IllegalArgumentException e) {
                outcomes[i] = Outcome.rejected("topic '" + topic + "': " + e.getMessage());
                continue;
            }
            if (record.json().length > maxPayload) {
                // MQTT 3.1.1 cannot refuse one message: a broker drops the connection over it, and
                // sent again it would stop its device's records for good.
                outcomes[i] = Outcome.rejected("payload of " + record.json().length + " bytes is over --mqtt-max-payload "
                        + maxPayload);
                continue;
            }
            if (!on.room().tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                fillRetry(outcomes, i, maxInFlight + " publishes awaiting PUBACK for " + timeout.toMillis() + " ms");
                break;
            }
            while (landed < i && (tokens[landed] == null || tokens[landed].isComplete()
                    && tokens[landed].getException() == null)) {
                landed++;
            }
            String stop = stopReason(on, tokens, landed, i);
            if (stop != null) {
                on.room().release();
                fillRetry(outcomes, i, stop);
                break;
            }
            try {
                tokens[i] = client.publish(topic, record.json(), AT_LEAST_ONCE, false, null, new Settled(on.room()));
            } catch (MqttException e) {
                on.room().release();
                fillRetry(outcomes, i, describe(e));
                break;
            }
        }
        for (int i = 0; i < tokens.length; i++) {
            if (tokens[i] != null) {
                outcomes[i] = await(tokens[i], deadline);
            }
        }
        return List.of(outcomes);
    }

    /**
     * Why the batch must not publish its record {@code next}, or null; records before
     * {@code landed} were PUBACKed. Paho marks the open tokens
     * of a lost connection failed before it lets a new connection start, so a batch whose earlier
     * record went down with a connection stops here and cannot go on over the next one.
     */
    private String stopReason(Connection on, IMqttDeliveryToken[] tokens, int landed, int next) {
        for (int j = landed; j < next; j++) {
            MqttException failed = tokens[j] == null || tokens[j].isComplete() && tokens[j].getException() == null
                    ? null : tokens[j].getException();
            if (failed != null) {
                return "an earlier record of the batch failed: " + describe(failed);
            }
        }
        if (connection != on || !client.isConnected()) {
            return "connection to " + serverUri + " lost during the batch";
        }
        return null;
    }

    private Outcome await(IMqttDeliveryToken token, long deadline) throws InterruptedException {
        try {
            // At least 1 ms: Paho waits forever for 0.
            token.waitForCompletion(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            return Outcome.DELIVERED;
        } catch (MqttException e) {
            rethrowInterrupt(e);
            if (e.getReasonCode() == MqttException.REASON_CODE_CLIENT_TIMEOUT) {
                return Outcome.retry("no PUBACK within " + timeout.toMillis() + " ms");
            }
            return Outcome.retry(describe(e));
        }
    }

    /**
     * The connection to publish on: the current one, or a new one made now (one connect at a time;
     * a lane arriving meanwhile waits for that connect, within its own deadline).
     *
     * @return null when not connected by the deadline
     */
    private Connection connected(long deadline) throws InterruptedException {
        Connection current = connection;
        if (current != null && client.isConnected()) {
            return current;
        }
        if (!connecting.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            return null;
        }
        try {
            // A failed connect's token has its exception but never reports complete.
            boolean settled = lastConnect == null || lastConnect.isComplete() || lastConnect.getException() != null;
            if (settled && !client.isConnected()) {
                try {
                    lastConnect = client.connect(options);
                } catch (MqttException e) {
                    connectFailed(e);
                    return null;
                }
            }
            try {
                lastConnect.waitForCompletion(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (MqttException e) {
                rethrowInterrupt(e);
                if (e.getReasonCode() != MqttException.REASON_CODE_CLIENT_TIMEOUT) {
                    connectFailed(e);
                } else {
                    lastConnectFailure = "connect still in progress";
                }
                return null;
            }
            if (!client.isConnected()) {
                lastConnectFailure = "connection closed right after connecting";
                return null;
            }
            current = connection;
            if (current == null || current.connect() != lastConnect) {
                current = new Connection(lastConnect, ++connections, new Semaphore(maxInFlight));
                connection = current;
                loggedFailure = null;
                connectRefused = false;
                LOG.info("sink=mqtt connected server={} client_id={} connection={}", serverUri, clientId,
                        current.number());
            }
            return current;
        } finally {
            connecting.unlock();
        }
    }

    /**
     * Every lane tries to connect while the broker is away; one line per outage and per minute
     * (or when the reason changes) is what an operator needs. Called holding {@link #connecting}.
     */
    private void connectFailed(MqttException failure) {
        String reason = describe(failure);
        connectRefused = failure.getReasonCode() == MqttException.REASON_CODE_FAILED_AUTHENTICATION
                || failure.getReasonCode() == MqttException.REASON_CODE_NOT_AUTHORIZED;
        lastConnectFailure = reason;
        long now = System.nanoTime();
        if (!reason.equals(loggedFailure) || now - loggedFailureAt > TimeUnit.MINUTES.toNanos(1)) {
            loggedFailure = reason;
            loggedFailureAt = now;
            LOG.warn("sink=mqtt connect failed server={} client_id={} reason=\"{}\" (retrying with the next batch)",
                    serverUri, clientId, reason);
        }
    }

    private String lastConnectFailure() {
        return lastConnectFailure;
    }

    private static void fillRetry(Outcome[] outcomes, int from, String reason) {
        Outcome retry = Outcome.retry(reason);
        for (int i = from; i < outcomes.length; i++) {
            if (outcomes[i] == null) {
                outcomes[i] = retry;
            }
        }
    }

    /** Paho turns an interrupt while waiting into an MqttException; the lane needs it back. */
    private static void rethrowInterrupt(MqttException e) throws InterruptedException {
        if (e.getCause() instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            throw new InterruptedException("interrupted waiting for the broker");
        }
    }

    static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder(String.valueOf(failure.getMessage()));
        if (failure instanceof MqttException mqtt) {
            text.append(" (").append(mqtt.getReasonCode()).append(')');
        }
        if (failure.getCause() != null && failure.getCause() != failure) {
            text.append(": ").append(failure.getCause());
        }
        return text.toString();
    }

    @Override
    public void close() {
        try {
            if (client.isConnected()) {
                client.disconnect(1_000).waitForCompletion(2_000);
            }
        } catch (MqttException e) {
            LOG.debug("sink=mqtt disconnect: {}", describe(e));
        }
        try {
            client.close(true);
        } catch (MqttException e) {
            LOG.debug("sink=mqtt close: {}", describe(e));
        }
    }

    /** Gives back a publish's room when it settled, with a PUBACK or with its connection. */
    private static final class Settled implements IMqttActionListener {

        private final Semaphore room;

        Settled(Semaphore room) {
            this.room = room;
        }

        @Override
        public void onSuccess(IMqttToken token) {
            room.release();
        }

        @Override
        public void onFailure(IMqttToken token, Throwable exception) {
            room.release();
        }
    }
}
