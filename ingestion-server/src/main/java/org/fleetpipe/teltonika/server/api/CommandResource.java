package org.fleetpipe.teltonika.server.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.fleetpipe.teltonika.codec.Imei;
import org.fleetpipe.teltonika.server.command.CommandService;
import org.fleetpipe.teltonika.server.command.CommandTemplate;
import org.fleetpipe.teltonika.server.command.DeviceCommandList;
import org.fleetpipe.teltonika.server.command.CommandTemplates;
import org.fleetpipe.teltonika.server.command.CommandSettings;
import org.fleetpipe.teltonika.server.json.Json;
import org.fleetpipe.teltonika.server.metrics.IngestionMetrics;

/**
 * {@code GET /api/v1/commands/{id}}, {@code GET /api/v1/devices/{imei}/commands} (a device's
 * commands, reached through {@link DeviceResource}), and {@code POST /api/v1/devices/{imei}/commands}: validate, store and queue a command, its text typed or built by a
 * template ({@link CommandTemplates}); with {@code wait_ms}, answer once it finished (200) or when
 * the wait ran out (202 with the status then).
 */
public final class CommandResource {

    /**
     * The body of {@code POST /api/v1/devices/{imei}/commands}: the text ({@code command}) or a named
     * command ({@code template} with its {@code args}); absent fields take their defaults.
     */
    public record CommandRequest(String command, String template, JsonNode args, Long codec, Long waitMs,
                                 Long ttlMs, Long maxAttempts) {
    }

    /**
     * A command as the API shows it: numbers as numbers, the history as a list, and the template that
     * built its text only when one did.
     */
    public record CommandView(String id, String imei, Long codec, String command, String status, String reason,
                              String reply, Long attempts, Long maxAttempts, Long createdAt, Long sentAt,
                              Long repliedAt, Long expiresAt, JsonNode history,
                              @JsonInclude(JsonInclude.Include.NON_NULL) String template) {
    }

    /** A page of one device's commands, newest first; {@code more}: ask again with {@code before} = the last id. */
    public record DeviceCommands(String imei, List<CommandView> commands, boolean more) {
    }

    /** The answer when the command's state could not be read back. */
    public record Queued(String id, String status) {
    }

    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 100;
    private static final Pattern COMMAND_ID = Pattern.compile("[A-Za-z0-9-]{1,64}");

    private final CommandService commands;
    private final DeviceCommandList deviceCommands;
    private final CommandSettings settings;
    private final IngestionMetrics metrics;

    public CommandResource(CommandService commands, DeviceCommandList deviceCommands, CommandSettings settings,
                           IngestionMetrics metrics) {
        this.commands = commands;
        this.deviceCommands = deviceCommands;
        this.settings = settings;
        this.metrics = metrics;
    }

    public ApiResource resource() {
        return ApiResource.of("commands", "try GET /api/v1/commands/{id}", Route.get("commands/{id}", this::get));
    }

    private void get(ApiCall call) {
        String id = call.param("id");
        commands.find(id).whenComplete((fields, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
            } else if (fields.isEmpty()) {
                call.error(HttpResponseStatus.NOT_FOUND, "not-found", "no command " + id);
            } else {
                call.json(HttpResponseStatus.OK, view(fields, call.masked()));
            }
        });
    }

    /**
     * {@code GET /api/v1/devices/{imei}/commands}, its IMEI checked: the device's queued, in-flight
     * and finished commands, newest first, masked for the read-only token as {@link #get} masks.
     */
    void list(ApiCall call, Imei imei) {
        int limit;
        String before;
        try {
            String given = call.query("limit");
            limit = given == null ? DEFAULT_LIMIT : Integer.parseInt(given);
            before = call.query("before");
        } catch (IllegalArgumentException e) {
            limit = -1;
            before = null;
        }
        if (limit < 1 || limit > MAX_LIMIT || (before != null && !COMMAND_ID.matcher(before).matches())) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-query", "limit must be 1.." + MAX_LIMIT
                    + ", before a command's id from the previous page");
            return;
        }
        String cursor = before;
        deviceCommands.page(imei, before, limit).whenComplete((page, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
            } else if (page.isEmpty()) {
                call.error(HttpResponseStatus.BAD_REQUEST, "bad-query", "command " + cursor + " is not among the"
                        + " commands kept for " + imei + " (any more): start again without before");
            } else {
                List<CommandView> views = new ArrayList<>();
                page.get().commands().forEach(fields -> views.add(view(fields, call.masked())));
                call.json(HttpResponseStatus.OK, new DeviceCommands(imei.value(), views, page.get().more()));
            }
        });
    }

    /** {@code POST /api/v1/devices/{imei}/commands}, its IMEI checked. */
    void submit(ApiCall call, Imei imei) {
        RequestBody.Result<CommandRequest> body = call.body(CommandRequest.class);
        if (body instanceof RequestBody.Malformed<CommandRequest>) {
            reject(call, "bad-json", "the body must be a JSON object");
            return;
        }
        if (body instanceof RequestBody.UnknownField<CommandRequest> unknown) {
            reject(call, "unknown-field", "unknown field '" + RequestBody.shown(unknown.name())
                    + "'; the fields are " + String.join(", ", unknown.fields()));
            return;
        }
        if (body instanceof RequestBody.BadValue<CommandRequest> bad) {
            refuse(call, bad.field());
            return;
        }
        CommandRequest request = ((RequestBody.Bound<CommandRequest>) body).value();
        if ((request.command() == null) == (request.template() == null)
                || (request.args() != null && request.template() == null)) {
            reject(call, "command-or-template", "give either command (the text) or template (a named command,"
                    + " with its args), not both; args only with template");
            return;
        }
        String text = request.template() == null ? request.command() : templateText(call, request);
        if (text == null) {
            return;
        }
        if (request.template() == null && !acceptable(text)) {
            refuse(call, "command");
            return;
        }
        Long codec = within(request.codec(), 12, 14, 12);
        if (codec == null || codec == 13) {
            refuse(call, "codec");
            return;
        }
        Long waitMs = within(request.waitMs(), 0, settings.maxWait().toMillis(), 0);
        if (waitMs == null) {
            refuse(call, "wait_ms");
            return;
        }
        Long ttlMs = within(request.ttlMs(), 1, settings.maxTtl().toMillis(), settings.defaultTtl().toMillis());
        if (ttlMs == null) {
            refuse(call, "ttl_ms");
            return;
        }
        Long maxAttempts = within(request.maxAttempts(), 1, CommandSettings.MAX_ATTEMPTS_LIMIT,
                settings.maxAttempts());
        if (maxAttempts == null) {
            refuse(call, "max_attempts");
            return;
        }
        commands.submit(imei, codec.intValue(), text, request.template(), Duration.ofMillis(ttlMs),
                        maxAttempts.intValue())
                .whenComplete((id, error) -> {
                    if (error != null) {
                        call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable",
                                "Redis did not answer");
                    } else if (id.isEmpty()) {
                        metrics.command("rejected");
                        call.error(HttpResponseStatus.TOO_MANY_REQUESTS, "queue-full", "device " + imei
                                + " already has " + settings.maxQueuePerDevice() + " commands waiting");
                    } else {
                        metrics.command("queued");
                        commands.await(id.get(), Duration.ofMillis(waitMs))
                                .whenComplete((fields, failed) -> respond(call, id.get(), fields, failed));
                    }
                });
    }

    /**
     * The text {@code request}'s template builds, checked as a typed text is; null when refused
     * (answered already).
     */
    private String templateText(ApiCall call, CommandRequest request) {
        Object args = request.args() == null ? Map.of() : plain(request.args());
        if (!(args instanceof Map<?, ?> given)) {
            reject(call, "bad-template-argument", "args must be an object of the template's arguments");
            return null;
        }
        @SuppressWarnings("unchecked")
        CommandTemplates.Built built = CommandTemplates.build(request.template(), (Map<String, ?>) given);
        if (built instanceof CommandTemplates.UnknownTemplate unknown) {
            reject(call, "unknown-template", "no template '" + RequestBody.shown(unknown.name())
                    + "'; the templates are " + String.join(", ", CommandTemplates.all().stream()
                    .map(CommandTemplate::name).toList()) + " (GET /api/v1/command-templates)");
            return null;
        }
        if (built instanceof CommandTemplates.BadArgument bad) {
            reject(call, "bad-template-argument", bad.message());
            return null;
        }
        String text = ((CommandTemplates.Text) built).text();
        if (!acceptable(text)) {
            reject(call, "bad-template-argument", request.template() + " builds a text of " + text.length()
                    + " characters; the most a command may have is " + settings.maxCommandBytes()
                    + " (COMMAND_MAX_BYTES)");
            return null;
        }
        return text;
    }

    /** A JSON value as the plain Java values templates take: Long, String, List, Map, Boolean, Double, null. */
    private static Object plain(JsonNode node) {
        if (node.isIntegralNumber()) {
            return node.isBigInteger() ? node.bigIntegerValue() : (Object) node.longValue();
        }
        if (node.isTextual()) {
            return node.textValue();
        }
        if (node.isArray()) {
            List<Object> items = new ArrayList<>();
            node.forEach(item -> items.add(plain(item)));
            return items;
        }
        if (node.isObject()) {
            Map<String, Object> fields = new LinkedHashMap<>();
            node.fields().forEachRemaining(field -> fields.put(field.getKey(), plain(field.getValue())));
            return fields;
        }
        if (node.isBoolean()) {
            return node.booleanValue();
        }
        return node.isNumber() ? (Object) node.doubleValue() : null;
    }

    private void respond(ApiCall call, String id, Map<String, String> fields, Throwable error) {
        if (error != null || fields == null || fields.isEmpty()) {
            call.json(HttpResponseStatus.ACCEPTED, new Queued(id, "queued"));
            return;
        }
        String status = fields.get("status");
        boolean done = "replied".equals(status) || "failed".equals(status);
        call.json(done ? HttpResponseStatus.OK : HttpResponseStatus.ACCEPTED, view(fields, call.masked()));
    }

    /** The 400 for a field that is not what the call takes. */
    private void refuse(ApiCall call, String field) {
        switch (field) {
            case "command" -> reject(call, "bad-command", "command must be 1.." + settings.maxCommandBytes()
                    + " printable ASCII characters");
            case "template" -> reject(call, "unknown-template", "template must be the name of a template"
                    + " (GET /api/v1/command-templates)");
            case "args" -> reject(call, "bad-template-argument", "args must be an object of the template's arguments");
            case "codec" -> reject(call, "bad-codec", "codec must be the number 12 or 14");
            case "wait_ms" -> reject(call, "bad-wait", "wait_ms must be a whole number 0.."
                    + settings.maxWait().toMillis());
            case "ttl_ms" -> reject(call, "bad-ttl", "ttl_ms must be a whole number 1.."
                    + settings.maxTtl().toMillis());
            case "max_attempts" -> reject(call, "bad-max-attempts", "max_attempts must be an integer 1.."
                    + CommandSettings.MAX_ATTEMPTS_LIMIT);
            default -> throw new IllegalArgumentException("no field " + field);
        }
    }

    private void reject(ApiCall call, String code, String message) {
        metrics.command("rejected");
        call.error(HttpResponseStatus.BAD_REQUEST, code, message);
    }

    /** {@code absent} for null, {@code value} when in {@code min..max}, else null. */
    private static Long within(Long value, long min, long max, long absent) {
        if (value == null) {
            return absent;
        }
        return value >= min && value <= max ? value : null;
    }

    /** What any command text must be, typed or built: 1..COMMAND_MAX_BYTES printable ASCII characters. */
    private boolean acceptable(String text) {
        return !text.isEmpty() && text.length() <= settings.maxCommandBytes() && printableAscii(text);
    }

    private static boolean printableAscii(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                return false;
            }
        }
        return true;
    }

    /** The command as the API shows it, from its hash's fields; {@code masked}: parameter values hidden (SecretMask). */
    static CommandView view(Map<String, String> fields, boolean masked) {
        JsonNode history;
        try {
            history = fields.get("history") == null ? null : Json.MAPPER.readTree(fields.get("history"));
        } catch (IOException e) {
            history = null;
        }
        return new CommandView(fields.get("id"), fields.get("imei"), number(fields.get("codec")),
                masked ? SecretMask.command(fields.get("command")) : fields.get("command"), fields.get("status"),
                fields.get("reason"), masked ? SecretMask.reply(fields.get("command"), fields.get("reply"))
                        : fields.get("reply"),
                number(fields.get("attempts")), number(fields.get("max_attempts")), number(fields.get("created_at")),
                number(fields.get("sent_at")), number(fields.get("replied_at")), number(fields.get("expires_at")),
                history, fields.get("template"));
    }

    private static Long number(String text) {
        return text == null ? null : Long.valueOf(text);
    }
}
