package org.fleetpipe.teltonika.server.api;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.ArrayList;
import java.util.List;
import org.fleetpipe.teltonika.codec.CodecException;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.admission.AdmissionLists;
import org.fleetpipe.teltonika.server.admission.AdmissionMode;

/**
 * The device lists: {@code GET /api/v1/admission} (mode and sizes),
 * {@code PUT|DELETE /api/v1/admission/{allowed|denied}/{imei}}, and
 * {@code POST /api/v1/admission/{allowed|denied}} with {@code {"add": [...], "remove": [...]}} for
 * thousands at once. Changes apply at the next login on every replica; denying a connected device,
 * or taking it off the allow-list in allow-list mode, cuts it off wherever it is.
 */
public final class AdmissionResource {

    /** The body of the bulk change; an absent list changes nothing. */
    public record BulkChange(List<String> add, List<String> remove) {
    }

    /** The admission mode and the lists' sizes. */
    public record Overview(String mode, long allowed, long denied) {
    }

    /** How many IMEIs one PUT added. */
    public record Added(long added) {
    }

    /** How many IMEIs one DELETE removed. */
    public record Removed(long removed) {
    }

    /** How many IMEIs a bulk change added and removed. */
    public record Changed(long added, long removed) {
    }

    private static final int MAX_BULK = 10_000;
    private static final String LISTS = "the lists are /api/v1/admission/allowed and /denied";

    private final AdmissionLists lists;
    private final AdmissionMode mode;

    public AdmissionResource(AdmissionLists lists, AdmissionMode mode) {
        this.lists = lists;
        this.mode = mode;
    }

    public ApiResource resource() {
        return new ApiResource("admission", List.of(
                Route.get("admission", this::overview),
                Route.put("admission/{list}/{imei}", this::one),
                Route.delete("admission/{list}/{imei}", this::one),
                Route.post("admission/{list}", this::bulk)),
                AdmissionResource::hint);
    }

    /** The 404 for a path under {@code admission/} that fits no route, as specific as the path allows. */
    private static String hint(List<String> segments) {
        String list = segments.size() >= 2 ? segments.get(1) : "";
        if (!list.equals("allowed") && !list.equals("denied")) {
            return LISTS;
        }
        return "PUT or DELETE /api/v1/admission/" + list + "/{imei}, or POST /api/v1/admission/" + list;
    }

    private void overview(ApiCall call) {
        lists.sizes().whenComplete((sizes, error) -> answer(call,
                sizes == null ? null : new Overview(mode.label(), sizes.allowed(), sizes.denied()), error));
    }

    private void one(ApiCall call) {
        AdmissionLists.ListName list = list(call);
        if (list == null) {
            return;
        }
        List<String> imei = new ArrayList<>();
        if (!collect(call, List.of(call.param("imei")), imei)) {
            return;
        }
        boolean add = call.request().method().equals(HttpMethod.PUT);
        lists.change(list, add, imei).whenComplete((n, error) -> answer(call,
                n == null ? null : add ? new Added(n) : new Removed(n), error));
    }

    private void bulk(ApiCall call) {
        AdmissionLists.ListName list = list(call);
        if (list == null) {
            return;
        }
        RequestBody.Result<BulkChange> body = call.body(BulkChange.class);
        if (body instanceof RequestBody.Malformed<BulkChange>) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-json", "the body must be {\"add\": [...], \"remove\": [...]}");
            return;
        }
        if (body instanceof RequestBody.UnknownField<BulkChange> unknown) {
            call.error(HttpResponseStatus.BAD_REQUEST, "unknown-field", "unknown field '"
                    + RequestBody.shown(unknown.name()) + "'; the fields are add and remove");
            return;
        }
        if (body instanceof RequestBody.BadValue<BulkChange> bad) {
            if (bad.index() < 0) {
                call.error(HttpResponseStatus.BAD_REQUEST, "bad-json", bad.field() + " must be a list of IMEI strings");
            } else {
                // 352093081452251 as a number is no IMEI: a JSON number loses leading zeros and digits.
                call.error(HttpResponseStatus.BAD_REQUEST, "bad-imei", bad.field()
                        + " must hold IMEIs as strings, not " + RequestBody.shown(String.valueOf(bad.value())));
            }
            return;
        }
        BulkChange change = ((RequestBody.Bound<BulkChange>) body).value();
        List<String> add = new ArrayList<>();
        List<String> remove = new ArrayList<>();
        if (!collect(call, change.add() == null ? List.of() : change.add(), add)
                || !collect(call, change.remove() == null ? List.of() : change.remove(), remove)) {
            return;
        }
        if (add.size() + remove.size() > MAX_BULK) {
            call.error(HttpResponseStatus.BAD_REQUEST, "too-many", "at most " + MAX_BULK + " IMEIs per request");
            return;
        }
        lists.change(list, true, add).thenCombine(lists.change(list, false, remove), Changed::new)
                .whenComplete((result, error) -> answer(call, result, error));
    }

    /** The path's list; null after answering 404 when it names none. */
    private static AdmissionLists.ListName list(ApiCall call) {
        switch (call.param("list")) {
            case "allowed":
                return AdmissionLists.ListName.ALLOWED;
            case "denied":
                return AdmissionLists.ListName.DENIED;
            default:
                call.error(HttpResponseStatus.NOT_FOUND, "not-found", LISTS);
                return null;
        }
    }

    /** Each of {@code raw} as an IMEI into {@code out}; false after answering 400 for the first that is none. */
    private static boolean collect(ApiCall call, List<String> raw, List<String> out) {
        for (String text : raw) {
            try {
                out.add(Imei.parse(text, false).value());
            } catch (CodecException e) {
                call.error(HttpResponseStatus.BAD_REQUEST, "bad-imei", "not an IMEI: " + RequestBody.shown(text));
                return false;
            }
        }
        return true;
    }

    private static void answer(ApiCall call, Object body, Throwable error) {
        if (error != null) {
            call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
        } else {
            call.json(HttpResponseStatus.OK, body);
        }
    }
}
