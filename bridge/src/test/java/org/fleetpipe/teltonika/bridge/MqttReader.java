package org.fleetpipe.teltonika.bridge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttClientState;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A QoS 1 subscriber that keeps every message it got, in arrival order, across its reconnects. */
final class MqttReader implements AutoCloseable {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** One message: the topic it came on, and the record's device and time. */
    record Received(String topic, String imei, long ts) {}

    private final String url;
    private final String filter;
    private final List<Received> received = new ArrayList<>();
    private Mqtt3BlockingClient client;

    MqttReader(String url, String filter) {
        this.url = url;
        this.filter = filter;
        connect();
    }

    /** Connects and subscribes (again): after a broker restart the old session is gone. */
    void connect() {
        close();
        URI server = URI.create(url);
        client = MqttClient.builder().useMqttVersion3().identifier("test-reader-" + System.nanoTime())
                .serverHost(server.getHost()).serverPort(server.getPort())
                .simpleAuth().username("reader").password("reader-secret".getBytes(StandardCharsets.UTF_8))
                .applySimpleAuth().buildBlocking();
        client.connectWith().cleanSession(true).send();
        client.toAsync().subscribeWith().topicFilter(filter).qos(MqttQos.AT_LEAST_ONCE).callback(this::arrived)
                .send().join();
    }

    private void arrived(Mqtt3Publish message) {
        try {
            JsonNode json = MAPPER.readTree(message.getPayloadAsBytes());
            synchronized (received) {
                received.add(new Received(message.getTopic().toString(), json.get("imei").asText(),
                        json.get("ts").longValue()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
    public void close() {
        if (client == null) {
            return;
        }
        if (client.getState() == MqttClientState.CONNECTED) {
            try {
                client.disconnect();
            } catch (RuntimeException e) {
                // The broker went first.
            }
        }
        client = null;
    }
}
