package org.fleetpipe.teltonika.bridge.sink.mqtt;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttClientBuilder;
import com.hivemq.client.mqtt.MqttClientTransportConfigBuilder;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.datatypes.MqttTopic;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.Mqtt3ClientBuilder;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5ClientBuilder;
import java.net.URI;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The HiveMQ client of one MQTT version (3.1.1 or 5), reduced to what the sink does: connect once
 * (the client's automatic reconnect does the rest), publish at QoS 1, disconnect.
 */
interface MqttPublisher {

    /** The first reconnect waits this long; each further one twice as long, up to {@link #RECONNECT_MAX}. */
    Duration RECONNECT_FIRST = Duration.ofMillis(500);
    Duration RECONNECT_MAX = Duration.ofSeconds(10);
    /** Seconds between PINGREQs on an idle connection. */
    int KEEP_ALIVE = 30;

    CompletableFuture<?> connect();

    /** Completes when the PUBACK arrived (exceptionally for an MQTT 5 PUBACK with an error code). */
    CompletableFuture<?> publish(MqttTopic topic, byte[] payload);

    CompletableFuture<?> disconnect();

    /** Where the sink connects, and how. */
    record Options(URI server, String clientId, String username, char[] password, int version, int maxInFlight,
                   Duration timeout) {}

    static MqttPublisher create(Options options, MqttConnectionWatch watch) {
        boolean ssl = "ssl".equals(options.server().getScheme());
        int port = options.server().getPort() > 0 ? options.server().getPort() : ssl ? 8883 : 1883;
        MqttClientTransportConfigBuilder transport = com.hivemq.client.mqtt.MqttClientTransportConfig.builder()
                .serverHost(options.server().getHost()).serverPort(port)
                .socketConnectTimeout(options.timeout().toMillis(), TimeUnit.MILLISECONDS)
                .mqttConnectTimeout(options.timeout().toMillis(), TimeUnit.MILLISECONDS);
        if (ssl) {
            transport = transport.sslWithDefaultConfig();
        }
        MqttClientBuilder builder = MqttClient.builder()
                .identifier(options.clientId())
                .transportConfig(transport.build())
                .automaticReconnect()
                .initialDelay(RECONNECT_FIRST.toMillis(), TimeUnit.MILLISECONDS)
                .maxDelay(RECONNECT_MAX.toMillis(), TimeUnit.MILLISECONDS)
                .applyAutomaticReconnect()
                .addConnectedListener(watch)
                .addDisconnectedListener(watch);
        byte[] password = options.password() == null ? null : utf8(options.password());
        int maxInFlight = options.maxInFlight();
        MqttPublisher publisher = options.version() == 5
                ? new V5(v5(builder.useMqttVersion5(), options.username(), password).buildAsync(), maxInFlight)
                : new V3(v3(builder.useMqttVersion3(), options.username(), password).buildAsync(), maxInFlight);
        watch.onConnectedAfterClose(publisher::disconnect);
        return publisher;
    }

    private static Mqtt5ClientBuilder v5(Mqtt5ClientBuilder builder, String username, byte[] password) {
        if (username == null) {
            return password == null ? builder : builder.simpleAuth().password(password).applySimpleAuth();
        }
        return password == null ? builder.simpleAuth().username(username).applySimpleAuth()
                : builder.simpleAuth().username(username).password(password).applySimpleAuth();
    }

    private static Mqtt3ClientBuilder v3(Mqtt3ClientBuilder builder, String username, byte[] password) {
        if (username == null) {
            // MQTT 3.1.1 has no password without a user name.
            return builder;
        }
        return password == null ? builder.simpleAuth().username(username).applySimpleAuth()
                : builder.simpleAuth().username(username).password(password).applySimpleAuth();
    }

    private static byte[] utf8(char[] password) {
        var encoded = StandardCharsets.UTF_8.encode(CharBuffer.wrap(password));
        byte[] bytes = Arrays.copyOf(encoded.array(), encoded.limit());
        Arrays.fill(encoded.array(), (byte) 0);
        return bytes;
    }

    /**
     * MQTT 5: a clean start and a session ending with the connection, so the client fails what was
     * in flight when the connection went; the send maximum is the least of ours and the broker's
     * receive maximum (the client keeps to it).
     */
    record V5(Mqtt5AsyncClient client, int maxInFlight) implements MqttPublisher {

        @Override
        public CompletableFuture<?> connect() {
            return client.connectWith().cleanStart(true).sessionExpiryInterval(0).keepAlive(KEEP_ALIVE)
                    .restrictions().sendMaximum(maxInFlight).applyRestrictions().send();
        }

        @Override
        public CompletableFuture<?> publish(MqttTopic topic, byte[] payload) {
            return client.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).payload(payload).send();
        }

        @Override
        public CompletableFuture<?> disconnect() {
            return client.disconnect();
        }
    }

    /** MQTT 3.1.1: a clean session; the client's own send maximum bounds the publishes in flight. */
    record V3(Mqtt3AsyncClient client, int maxInFlight) implements MqttPublisher {

        @Override
        public CompletableFuture<?> connect() {
            return client.connectWith().cleanSession(true).keepAlive(KEEP_ALIVE)
                    .restrictions().sendMaximum(maxInFlight).applyRestrictions().send();
        }

        @Override
        public CompletableFuture<?> publish(MqttTopic topic, byte[] payload) {
            return client.publishWith().topic(topic).qos(MqttQos.AT_LEAST_ONCE).payload(payload).send();
        }

        @Override
        public CompletableFuture<?> disconnect() {
            return client.disconnect();
        }
    }
}
