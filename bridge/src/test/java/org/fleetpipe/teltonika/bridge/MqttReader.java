package org.fleetpipe.teltonika.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

/** A QoS 1 subscriber that keeps every message it got, in arrival order, across its reconnects. */
final class MqttReader implements AutoCloseable {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** One message: the topic it came on, and the record's device and time. */
    record Received(String topic, String imei, long ts) {}

    private final String url;
    private final String filter;
    private final List<Received> received = new ArrayList<>();
    private MqttClient client;

    MqttReader(String url, String filter) throws MqttException {
        this.url = url;
        this.filter = filter;
        connect();
    }

    /** Connects and subscribes (again): after a broker restart the old session is gone. */
    void connect() throws MqttException {
        close();
        client = new MqttClient(url, "test-reader-" + System.nanoTime(), new MemoryPersistence());
        client.setCallback(new MqttCallback() {
            @Override
            public void connectionLost(Throwable cause) {
            }

            @Override
            public void messageArrived(String topic, MqttMessage message) {
                try {
                    JsonNode json = MAPPER.readTree(message.getPayload());
                    synchronized (received) {
                        received.add(new Received(topic, json.get("imei").asText(), json.get("ts").longValue()));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }

            @Override
            public void deliveryComplete(IMqttDeliveryToken token) {
            }
        });
        MqttConnectOptions options = new MqttConnectOptions();
        options.setCleanSession(true);
        options.setUserName("reader");
        options.setPassword("reader-secret".toCharArray());
        client.connect(options);
        client.subscribe(filter, 1);
    }

    List<Received> received() {
        synchronized (received) {
            return new ArrayList<>(received);
        }
    }

    int count() {
        synchronized (received) {
            return received.size();
        }
    }

    long distinct() {
        return received().stream().distinct().count();
    }

    @Override
    public void close() throws MqttException {
        if (client == null) {
            return;
        }
        if (client.isConnected()) {
            client.disconnect(1_000);
        }
        client.close(true);
        client = null;
    }
}
