package org.fleetpipe.teltonika.server.api;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.capture.CaptureDuration;
import org.fleetpipe.teltonika.server.capture.CaptureEntry;
import org.fleetpipe.teltonika.server.capture.CaptureService;
import org.fleetpipe.teltonika.server.config.HttpSettings;
import org.fleetpipe.teltonika.server.http.AnswerBudget;

/**
 * {@code POST|GET|DELETE /api/v1/devices/{imei}/capture} (reached through {@link DeviceResource}):
 * start a support capture of one device's frames, read it oldest first, stop it.
 */
public final class CaptureResource {

    /** The body of the POST: how long to capture, e.g. {@code "10m"}. */
    public record CaptureRequest(String duration) {
    }

    /**
     * A capture started: until when, and the instance holding the device now (null: it is captured
     * from its next login).
     */
    public record Started(String imei, boolean active, long until, String instance) {
    }

    /** A capture stopped. */
    public record Stopped(String imei, boolean active) {
    }

    /**
     * A page of a capture stream, oldest first, cut at {@code limit} entries or about 1 MiB of them;
     * {@code more}: ask again with {@code after} = the last id.
     */
    public record CaptureView(String imei, boolean active, Long until, List<CaptureEntry> entries, boolean more) {
    }

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;
    private static final Pattern STREAM_ID = Pattern.compile("\\d{1,20}-\\d{1,20}");

    /** Seconds a reader turned away by the answer budget is asked to wait. */
    static final int RETRY_AFTER_SECONDS = 1;

    private final CaptureService captures;
    private final AnswerBudget answers;

    public CaptureResource(CaptureService captures, AnswerBudget answers) {
        this.captures = captures;
        this.answers = answers;
    }

    void start(ApiCall call, Imei imei) {
        RequestBody.Result<CaptureRequest> body = call.body(CaptureRequest.class);
        if (body instanceof RequestBody.Malformed<CaptureRequest>) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-json", "the body must be a JSON object such as"
                    + " {\"duration\": \"10m\"}");
            return;
        }
        if (body instanceof RequestBody.UnknownField<CaptureRequest> unknown) {
            call.error(HttpResponseStatus.BAD_REQUEST, "unknown-field", "unknown field '"
                    + RequestBody.shown(unknown.name()) + "'; the fields are " + String.join(", ", unknown.fields()));
            return;
        }
        String text = body instanceof RequestBody.Bound<CaptureRequest> bound ? bound.value().duration() : null;
        Duration duration;
        try {
            duration = CaptureDuration.parse(text);
        } catch (IllegalArgumentException e) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-duration", e.getMessage());
            return;
        }
        Duration max = captures.settings().maxDuration();
        if (duration.compareTo(max) > 0) {
            call.error(HttpResponseStatus.BAD_REQUEST, "duration-too-long", "a capture lasts at most "
                    + max.toMinutes() + " minutes (CAPTURE_MAX_DURATION)");
            return;
        }
        captures.start(imei, duration).whenComplete((outcome, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
            } else if (outcome instanceof CaptureService.Full full) {
                call.error(HttpResponseStatus.TOO_MANY_REQUESTS, "too-many-captures", full.max()
                        + " captures are active (MAX_CAPTURES); stop one (DELETE) or wait for one to end");
            } else {
                CaptureService.Started started = (CaptureService.Started) outcome;
                call.json(HttpResponseStatus.OK, new Started(imei.value(), true, started.until(), started.instance()));
            }
        });
    }

    void stop(ApiCall call, Imei imei) {
        captures.stop(imei).whenComplete((stopped, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
            } else if (!stopped) {
                call.error(HttpResponseStatus.NOT_FOUND, "no-capture", "no capture of " + imei + " is active");
            } else {
                call.json(HttpResponseStatus.OK, new Stopped(imei.value(), false));
            }
        });
    }

    void read(ApiCall call, Imei imei) {
        if (call.masked()) {
            call.error(HttpResponseStatus.FORBIDDEN, "forbidden", "a capture holds the device's raw frames, command"
                    + " texts and replies: read it with the operator token (API_TOKEN)");
            return;
        }
        int limit;
        String after;
        try {
            String given = call.query("limit");
            limit = given == null ? DEFAULT_LIMIT : Integer.parseInt(given);
            after = call.query("after");
        } catch (IllegalArgumentException e) {
            limit = -1;
            after = null;
        }
        if (limit < 1 || limit > MAX_LIMIT || (after != null && !STREAM_ID.matcher(after).matches())) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-query", "limit must be 1.." + MAX_LIMIT
                    + ", after an entry's id (such as 1700000000000-0)");
            return;
        }
        // Held from before the read until the answer is in the socket: what unread answers can pin
        // in memory is capped across all connections.
        AnswerBudget.Hold hold = answers.reserve(HttpSettings.ANSWER_PAGE_BYTES);
        if (hold == null) {
            call.busy(HttpResponseStatus.SERVICE_UNAVAILABLE, "answers-pending", "capture pages of "
                    + answers.max() + " bytes wait for their readers (HTTP_ANSWER_BYTES_MAX); retry shortly",
                    RETRY_AFTER_SECONDS);
            return;
        }
        captures.read(imei, limit, after, HttpSettings.ANSWER_PAGE_BYTES).whenComplete((page, error) -> {
            if (error != null || !page.exists()) {
                hold.release();
            }
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
            } else if (!page.exists()) {
                call.error(HttpResponseStatus.NOT_FOUND, "no-capture", "no capture of " + imei
                        + " is active or kept (CAPTURE_RETENTION)");
            } else {
                call.json(HttpResponseStatus.OK, new CaptureView(imei.value(), page.until() != null, page.until(),
                        page.entries(), page.more()), hold);
            }
        });
    }
}
