package org.fleetpipe.teltonika.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.bridge.sink.OutboundRecord;
import org.fleetpipe.teltonika.bridge.sink.Outcome;
import org.fleetpipe.teltonika.bridge.sink.http.HttpSink;
import org.junit.jupiter.api.Test;

/** Every class of HTTP answer, from a real endpoint on loopback, as the lane will treat it. */
class HttpSinkAnswersIT {

    private static final List<OutboundRecord> TWO = List.of(
            new OutboundRecord("1-0", "352093081452251", "{\"imei\":\"352093081452251\",\"ts\":1}".getBytes()),
            new OutboundRecord("2-0", "352093081452251", "{\"imei\":\"352093081452251\",\"ts\":2}".getBytes()));

    @Test
    void theEndpointNotAccepting_isARetry_neverADeadLetter() throws Exception {
        try (RecordingHttpSink endpoint = new RecordingHttpSink()) {
            HttpSink sink = new HttpSink(endpoint.url(), Duration.ofSeconds(2), Map.of());
            for (int status : new int[] {301, 302, 307, 401, 403, 404, 405, 407, 409, 415}) {
                endpoint.failWith(status, "no");
                assertThat(kinds(sink)).as("status %d", status).containsOnly(Outcome.Kind.REFUSING);
            }
            for (int status : new int[] {408, 429, 500, 502, 503, 504}) {
                endpoint.failWith(status, "later");
                assertThat(kinds(sink)).as("status %d", status).containsOnly(Outcome.Kind.RETRY);
            }
            endpoint.down();
            assertThat(kinds(sink)).as("connection refused").containsOnly(Outcome.Kind.RETRY);
        }
    }

    @Test
    void aTlsFailure_refusesTheBridge() throws Exception {
        // A server that answers a TLS hello in plain text, as a plain-HTTP port does.
        try (ServerSocket plain = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Thread answering = new Thread(() -> {
                while (!plain.isClosed()) {
                    try (Socket client = plain.accept()) {
                        client.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes());
                    } catch (IOException closed) {
                        return;
                    }
                }
            }, "plain-http");
            answering.setDaemon(true);
            answering.start();
            URI tls = URI.create("https://127.0.0.1:" + plain.getLocalPort() + "/ingest");
            assertThat(kinds(new HttpSink(tls, Duration.ofSeconds(2), Map.of()))).containsOnly(Outcome.Kind.REFUSING);
        }
    }

    @Test
    void aRecordLevelRefusal_refusesTheRequestAsAWhole_and2xxDelivers() throws Exception {
        try (RecordingHttpSink endpoint = new RecordingHttpSink()) {
            HttpSink sink = new HttpSink(endpoint.url(), Duration.ofSeconds(2), Map.of());
            for (int status : new int[] {400, 413, 422}) {
                endpoint.failWith(status, "{\"error\":\"bad record\"}");
                assertThat(kinds(sink)).as("status %d", status).containsOnly(Outcome.Kind.BATCH_REJECTED);
            }
            endpoint.failWith(null, "");
            assertThat(kinds(sink)).containsOnly(Outcome.Kind.DELIVERED);
        }
    }

    private static List<Outcome.Kind> kinds(HttpSink sink) throws InterruptedException {
        return sink.deliver(TWO).stream().map(Outcome::kind).toList();
    }
}
