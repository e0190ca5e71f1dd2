package org.fleetpipe.teltonika.bridge.sink.mqtt;

import com.hivemq.client.mqtt.lifecycle.MqttClientConnectedContext;
import com.hivemq.client.mqtt.lifecycle.MqttClientConnectedListener;
import com.hivemq.client.mqtt.lifecycle.MqttClientDisconnectedContext;
import com.hivemq.client.mqtt.lifecycle.MqttClientDisconnectedListener;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the client's connection as its automatic reconnect makes and loses it: which connection
 * is up (numbered), why the last attempt failed, whether the broker refused the bridge itself; and
 * after {@link #close()} stops the client's reconnecting.
 */
final class MqttConnectionWatch implements MqttClientConnectedListener, MqttClientDisconnectedListener {

    private static final Logger LOG = LoggerFactory.getLogger(MqttConnectionWatch.class);

    private final String serverUri;
    private final String clientId;
    private final Object lock = new Object();
    private long connections;
    private boolean connected;
    private long failures;
    private String lastFailure = "no connect yet";
    private boolean refused;
    private boolean closed;
    private String loggedFailure;
    private long loggedFailureAt;
    private Runnable onConnectedAfterClose = () -> { };

    MqttConnectionWatch(String serverUri, String clientId) {
        this.serverUri = serverUri;
        this.clientId = clientId;
    }

    /** What to do when a connect in progress at {@link #close()} still succeeds: disconnect. */
    void onConnectedAfterClose(Runnable disconnect) {
        this.onConnectedAfterClose = disconnect;
    }

    @Override
    public void onConnected(MqttClientConnectedContext context) {
        long number;
        synchronized (lock) {
            if (closed) {
                number = -1;
            } else {
                number = ++connections;
                connected = true;
                refused = false;
                loggedFailure = null;
                lock.notifyAll();
            }
        }
        if (number < 0) {
            onConnectedAfterClose.run();
            return;
        }
        LOG.info("sink=mqtt connected server={} client_id={} connection={}", serverUri, clientId, number);
    }

    @Override
    public void onDisconnected(MqttClientDisconnectedContext context) {
        Throwable cause = context.getCause();
        String reason = MqttAnswers.describe(cause);
        boolean log;
        boolean lost;
        synchronized (lock) {
            if (closed) {
                // The client's automatic reconnect would go on after close; it asked its listeners first.
                context.getReconnector().reconnect(false);
                return;
            }
            lost = connected;
            connected = false;
            failures++;
            lastFailure = reason;
            // Only the answer to a connect says something about the bridge; a lost connection is an outage.
            refused = !lost && MqttAnswers.refusesTheBridge(cause);
            lock.notifyAll();
            // Every attempt of the reconnect reports here; one line per reason and minute is enough.
            long now = System.nanoTime();
            log = lost || !reason.equals(loggedFailure) || now - loggedFailureAt > TimeUnit.MINUTES.toNanos(1);
            if (log) {
                loggedFailure = reason;
                loggedFailureAt = now;
            }
        }
        if (log) {
            LOG.warn("sink=mqtt {} server={} client_id={} reason=\"{}\" (the client reconnects)",
                    lost ? "connection lost" : "connect failed", serverUri, clientId, reason);
        }
    }

    /**
     * Waits until connected, until a connect attempt failed, or until the deadline.
     *
     * @return the number of the connection to publish on, or 0 when not connected
     */
    long awaitConnected(long deadlineNanos) throws InterruptedException {
        synchronized (lock) {
            long failuresBefore = failures;
            while (!connected && failures == failuresBefore && !closed) {
                long remaining = deadlineNanos - System.nanoTime();
                if (remaining <= 0) {
                    break;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, remaining);
            }
            return connected ? connections : 0;
        }
    }

    /** Whether connection {@code number} is still the one up. */
    boolean isCurrent(long number) {
        synchronized (lock) {
            return connected && connections == number;
        }
    }

    String lastFailure() {
        synchronized (lock) {
            return lastFailure;
        }
    }

    /** Whether the broker answered the last connect by refusing the bridge (credentials, authorization). */
    boolean refused() {
        synchronized (lock) {
            return refused;
        }
    }

    /** Stops the reconnecting: the next attempt's result reports here and goes no further. */
    void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
    }
}
