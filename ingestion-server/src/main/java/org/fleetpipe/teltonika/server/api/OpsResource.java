package org.fleetpipe.teltonika.server.api;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.server.json.Json;
import org.fleetpipe.teltonika.server.ops.DeadLetterQueries;
import org.fleetpipe.teltonika.server.ops.PurgeReport;
import org.fleetpipe.teltonika.server.ops.Purger;
import org.fleetpipe.teltonika.server.health.QueueHealth;
import org.fleetpipe.teltonika.server.health.QueueHealthMonitor;

/**
 * The on-call engineer's calls: {@code GET /api/v1/health/queues},
 * {@code GET /api/v1/dlq/{frames|commands}?limit=&since=} and {@code POST /api/v1/purge?dry_run=}.
 * One class for three resources: each would be a near-empty class; they share the query parsing.
 */
public final class OpsResource {

    /** The queues' health. */
    public record QueueReport(String status, long computedAt, List<QueueView> queues) {
    }

    /**
     * One queue; {@code detail} (the stream's cap, back-pressure, groups; the commands' due and
     * orphan counts; the dead letters' window) follows its fields.
     */
    public record QueueView(String queue, long size, long oldestAgeMs, long stuck, String status, long avgAgeMs,
                            double ratePerMinute, String reason, @JsonAnyGetter Map<String, Object> detail) {
    }

    /** Dead letters, each the JSON it was stored as (its text when it is not JSON). */
    public record DeadLetters(String kind, List<Object> entries) {
    }

    /**
     * What a purge removed, or would remove. {@code expiredCommands} is always 0: queued commands past
     * their TTL are the command sweep's (kept so clients that read the field go on working).
     */
    public record PurgeView(boolean dryRun, long expiredCommands, long orphanedCommands,
                            long frameDeadLettersPastTtl, long commandDeadLettersPastTtl, long elapsedMs) {
    }

    private static final int MAX_LIMIT = 1000;

    private final QueueHealthMonitor health;
    private final Purger purger;
    private final DeadLetterQueries deadLetters;

    public OpsResource(QueueHealthMonitor health, Purger purger, DeadLetterQueries deadLetters) {
        this.health = health;
        this.purger = purger;
        this.deadLetters = deadLetters;
    }

    public List<ApiResource> resources() {
        return List.of(
                ApiResource.of("health", "try GET /api/v1/health/queues", Route.get("health/queues", this::queues)),
                ApiResource.of("dlq", "try GET /api/v1/dlq/frames or /api/v1/dlq/commands",
                        Route.get("dlq/{kind}", this::deadLetters)),
                ApiResource.of("purge", "try POST /api/v1/purge?dry_run=true", Route.post("purge", this::purge)));
    }

    private void queues(ApiCall call) {
        QueueHealthMonitor.Report report = health.last();
        List<QueueView> queues = new ArrayList<>();
        for (QueueHealth q : report.queues()) {
            queues.add(new QueueView(q.queue(), q.size(), q.oldestAgeMs(), q.stuck(), q.status().label(), q.avgAgeMs(),
                    q.ratePerMinute(), q.reason(), q.detail()));
        }
        call.json(HttpResponseStatus.OK, new QueueReport(report.status().label(), report.computedAt(), queues));
    }

    private void deadLetters(ApiCall call) {
        String kind = call.param("kind");
        DeadLetterQueries.Kind which = kind.equals("frames") ? DeadLetterQueries.Kind.FRAMES
                : kind.equals("commands") ? DeadLetterQueries.Kind.COMMANDS : null;
        if (which == null) {
            call.error(HttpResponseStatus.NOT_FOUND, "not-found", "try GET /api/v1/dlq/frames or /api/v1/dlq/commands");
            return;
        }
        long limit;
        long since;
        try {
            limit = param(call, "limit", 100);
            since = param(call, "since", 0);
        } catch (IllegalArgumentException e) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-query", "limit and since are whole numbers");
            return;
        }
        if (limit < 1 || limit > MAX_LIMIT || since < 0) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-query", "limit must be 1.." + MAX_LIMIT
                    + ", since (ms) not negative");
            return;
        }
        deadLetters.list(which, since, limit).whenComplete((entries, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "redis-unavailable", "Redis did not answer");
                return;
            }
            List<Object> parsed = new ArrayList<>();
            for (String entry : entries) {
                try {
                    JsonNode letter = Json.MAPPER.readTree(entry);
                    if (call.masked() && letter instanceof ObjectNode object) {
                        masked(which, object);
                    }
                    parsed.add(letter);
                } catch (IOException e) {
                    // Unparsable: shown whole to the operator token only, as it may hold anything.
                    parsed.add(call.masked() ? SecretMask.MASK : entry);
                }
            }
            call.json(HttpResponseStatus.OK, new DeadLetters(kind, parsed));
        });
    }

    private void purge(ApiCall call) {
        String dry;
        try {
            dry = call.query("dry_run");
        } catch (IllegalArgumentException e) {
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-query", "malformed query string");
            return;
        }
        String dryValue = dry == null ? "false" : dry;
        if (!dryValue.isEmpty() && !dryValue.equals("true") && !dryValue.equals("false")) {
            // dry_run=1 or =yes must not purge for real.
            call.error(HttpResponseStatus.BAD_REQUEST, "bad-query", "dry_run must be true or false");
            return;
        }
        boolean dryRun = !dryValue.equals("false");
        purger.purgeSoon(dryRun).whenComplete((report, error) -> {
            if (error != null) {
                call.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "purge-failed",
                        "the purge could not finish; see the server log");
                return;
            }
            call.json(HttpResponseStatus.OK, view(report));
        });
    }

    private static PurgeView view(PurgeReport r) {
        return new PurgeView(r.dryRun(), 0, r.orphanedCommands(), r.frameDeadLetters(),
                r.commandDeadLetters(), r.elapsedMs());
    }

    private static long param(ApiCall call, String name, long fallback) {
        String value = call.query(name);
        return value == null ? fallback : Long.parseLong(value);
    }

    /**
     * A dead letter as a read-only caller sees it: a refused frame without its bytes (they may be a
     * command reply holding parameter values), a command with its parameter values masked.
     */
    private static void masked(DeadLetterQueries.Kind kind, ObjectNode letter) {
        if (kind == DeadLetterQueries.Kind.FRAMES) {
            if (letter.has("hex")) {
                letter.put("hex", SecretMask.MASK);
            }
            return;
        }
        String command = letter.path("command").isTextual() ? letter.get("command").asText() : null;
        if (letter.path("reply").isTextual()) {
            letter.put("reply", SecretMask.reply(command, letter.get("reply").asText()));
        }
        if (command != null) {
            letter.put("command", SecretMask.command(command));
        }
    }
}
