package org.fleetpipe.teltonika.bridge.sink.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLException;
import org.fleetpipe.teltonika.bridge.sink.OutboundRecord;
import org.fleetpipe.teltonika.bridge.sink.Outcome;
import org.fleetpipe.teltonika.bridge.sink.Sink;

/**
 * POSTs each batch as JSON lines ({@code application/x-ndjson}, one record per line). A 2xx
 * delivers the batch. 400, 413 and 422 refuse something in the request: the batch is refused as a
 * whole, and the lane splits it until the record refused stands alone. 408, 429, 5xx, a timeout or
 * a broken connection ask for a retry (after {@code Retry-After} when the server sends one); any
 * other status (3xx, 401, 403, 404, 405, 407, ...) or a TLS failure says the endpoint does not
 * accept the bridge at all (credentials, address): retried too, until that is fixed, never a
 * dead letter.
 */
public final class HttpSink implements Sink {

    /** The head of a refusal's body kept as its reason. */
    private static final int BODY_HEAD = 256;

    private final HttpClient client;
    private final URI url;
    private final Duration timeout;
    private final Map<String, String> headers;

    public HttpSink(URI url, Duration timeout, Map<String, String> headers) {
        this.client = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
        this.url = url;
        this.timeout = timeout;
        this.headers = Map.copyOf(headers);
    }

    @Override
    public String name() {
        return "http";
    }

    @Override
    public List<Outcome> deliver(List<OutboundRecord> batch) throws InterruptedException {
        return Collections.nCopies(batch.size(), post(batch));
    }

    private Outcome post(List<OutboundRecord> batch) throws InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(timeout)
                .header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofByteArray(jsonLines(batch)));
        headers.forEach(request::header);
        HttpResponse<InputStream> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpTimeoutException e) {
            return Outcome.retry("timeout after " + timeout.toMillis() + " ms");
        } catch (IOException e) {
            // A certificate or protocol mismatch does not pass by itself: someone must fix it.
            return tlsFailure(e) ? Outcome.refusing("TLS: " + e) : Outcome.retry("connection: " + e);
        }
        int status = response.statusCode();
        String head = head(response.body());
        if (status >= 200 && status < 300) {
            return Outcome.DELIVERED;
        }
        if (status == 408 || status == 429 || status >= 500) {
            return Outcome.retry("status " + status + ": " + head, retryAfter(response));
        }
        if (status == 400 || status == 413 || status == 422) {
            return Outcome.batchRejected("status " + status + ": " + head);
        }
        return Outcome.refusing("status " + status + ": " + head);
    }

    /** Whether the failure is TLS's (the client may wrap it in an IOException of its own). */
    private static boolean tlsFailure(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof SSLException) {
                return true;
            }
        }
        return false;
    }

    static byte[] jsonLines(List<OutboundRecord> batch) {
        int size = 0;
        for (OutboundRecord record : batch) {
            size += record.json().length + 1;
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream(size);
        for (OutboundRecord record : batch) {
            body.writeBytes(record.json());
            body.write('\n');
        }
        return body.toByteArray();
    }

    /** Reads at most the head of the body, then drops the rest with the connection's stream. */
    private static String head(InputStream body) {
        try (body) {
            byte[] head = body.readNBytes(BODY_HEAD);
            return new String(head, StandardCharsets.UTF_8).replaceAll("\\s+", " ").trim();
        } catch (IOException e) {
            return "";
        }
    }

    private static Duration retryAfter(HttpResponse<?> response) {
        Optional<String> value = response.headers().firstValue("Retry-After");
        try {
            // Seconds only; an HTTP date is rare from a sink and the back-off covers it.
            return value.map(seconds -> Duration.ofSeconds(Math.min(300, Long.parseLong(seconds.trim()))))
                    .orElse(Duration.ZERO);
        } catch (NumberFormatException e) {
            return Duration.ZERO;
        }
    }

    @Override
    public void close() {
        // The JDK client has no close before Java 21; its threads are daemons.
    }
}
