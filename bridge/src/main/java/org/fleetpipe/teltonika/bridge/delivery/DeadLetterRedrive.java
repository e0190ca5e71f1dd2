package org.fleetpipe.teltonika.bridge.delivery;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fleetpipe.teltonika.bridge.ops.BridgeMetrics;
import org.fleetpipe.teltonika.bridge.sink.OutboundRecord;
import org.fleetpipe.teltonika.bridge.sink.Outcome;
import org.fleetpipe.teltonika.bridge.sink.Sink;
import org.fleetpipe.teltonika.bridge.stream.StreamEntry;
import org.fleetpipe.teltonika.bridge.stream.StreamKeys;
import org.fleetpipe.teltonika.payload.EntryBody;
import org.fleetpipe.teltonika.payload.MalformedEntryException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --redrive}: sends the dead letters of {@code dlq:bridge:<group>} to the sink again, oldest
 * first, each as the record it was (its {@code id} the entry's own), and removes each one once the
 * sink took it. A sink not accepting is retried as the bridge retries it; a record the sink refuses
 * again, or an entry that is not a record, stays where it is. One pass, then it returns.
 */
public final class DeadLetterRedrive {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterRedrive.class);

    /** What a pass did: removed once delivered, refused again (kept), not a record (kept). */
    public record Result(int delivered, int refusedAgain, int malformed) {}

    private final RedisClusterCommands<String, String> redis;
    private final StreamKeys keys;
    private final Sink sink;
    private final RecordMaker maker;
    private final Backoff backoff;
    private final BridgeMetrics metrics;
    private final int batchSize;

    public DeadLetterRedrive(RedisClusterCommands<String, String> redis, StreamKeys keys, Sink sink, RecordMaker maker,
                             Backoff backoff, BridgeMetrics metrics, int batchSize) {
        this.redis = redis;
        this.keys = keys;
        this.sink = sink;
        this.maker = maker;
        this.backoff = backoff;
        this.metrics = metrics;
        this.batchSize = batchSize;
    }

    /** One pass over the dead letters there are now (ones added meanwhile, after the last read, too). */
    public Result run() throws InterruptedException {
        int delivered = 0;
        int refusedAgain = 0;
        int malformed = 0;
        Range.Boundary<String> after = Range.Boundary.unbounded();
        while (true) {
            List<StreamMessage<String, String>> page = redis.xrange(keys.deadLetters(),
                    Range.from(after, Range.Boundary.unbounded()), Limit.from(batchSize));
            if (page.isEmpty()) {
                break;
            }
            after = Range.Boundary.excluding(page.get(page.size() - 1).getId());
            List<String> letterIds = new ArrayList<>(page.size());
            List<StreamEntry> entries = new ArrayList<>(page.size());
            for (StreamMessage<String, String> letter : page) {
                entries.add(asEntry(letter.getBody()));
                letterIds.add(letter.getId());
            }
            maker.prepare(entries, metrics);
            List<OutboundRecord> records = new ArrayList<>(page.size());
            List<String> recordLetters = new ArrayList<>(page.size());
            for (int i = 0; i < entries.size(); i++) {
                try {
                    records.add(maker.make(entries.get(i)));
                    recordLetters.add(letterIds.get(i));
                } catch (MalformedEntryException e) {
                    malformed++;
                }
            }
            int[] counts = send(records, recordLetters);
            delivered += counts[0];
            refusedAgain += counts[1];
        }
        Result result = new Result(delivered, refusedAgain, malformed);
        LOG.info("redrive done sink={} stream={} delivered_and_removed={} refused_again={} malformed_kept={}",
                sink.name(), keys.deadLetters(), delivered, refusedAgain, malformed);
        return result;
    }

    /** Sends until each record is taken (its dead letter removed) or refused; {delivered, refused}. */
    private int[] send(List<OutboundRecord> records, List<String> letters) throws InterruptedException {
        int delivered = 0;
        int refused = 0;
        int attempt = 0;
        while (!records.isEmpty()) {
            List<Outcome> outcomes = sink.deliver(records);
            if (records.size() > 1 && outcomes.stream().anyMatch(o -> o.kind() == Outcome.Kind.BATCH_REJECTED)) {
                // The refused ones are unknown: each one alone says which.
                for (int i = 0; i < records.size(); i++) {
                    int[] one = send(new ArrayList<>(List.of(records.get(i))), new ArrayList<>(List.of(letters.get(i))));
                    delivered += one[0];
                    refused += one[1];
                }
                return new int[] {delivered, refused};
            }
            List<OutboundRecord> again = new ArrayList<>();
            List<String> againLetters = new ArrayList<>();
            List<String> done = new ArrayList<>();
            String reason = "";
            for (int i = 0; i < records.size(); i++) {
                Outcome outcome = outcomes.get(i);
                if (outcome.kind() == Outcome.Kind.DELIVERED) {
                    done.add(letters.get(i));
                } else if (outcome.isRetry()) {
                    again.add(records.get(i));
                    againLetters.add(letters.get(i));
                    reason = outcome.reason();
                } else {
                    refused++;
                    LOG.warn("redrive: sink={} refused again letter={} imei={} reason=\"{}\" (kept)", sink.name(),
                            letters.get(i), records.get(i).imei(), outcome.reason());
                }
            }
            if (!done.isEmpty()) {
                redis.xdel(keys.deadLetters(), done.toArray(String[]::new));
                delivered += done.size();
            }
            if (!again.isEmpty()) {
                if (attempt % 10 == 0) {
                    LOG.warn("redrive: sink={} attempt={} retrying={} reason=\"{}\"", sink.name(), attempt + 1,
                            again.size(), reason);
                }
                Duration pause = backoff.next(attempt++);
                Thread.sleep(pause.toMillis());
            }
            records = again;
            letters = againLetters;
        }
        return new int[] {delivered, refused};
    }

    /** The entry a dead letter was: its own fields, its id and stream. */
    private StreamEntry asEntry(Map<String, String> letter) {
        Map<String, String> fields = new LinkedHashMap<>();
        letter.forEach((name, value) -> {
            if (!name.startsWith("dlq_")) {
                fields.put(name, value);
            }
        });
        String stream = letter.getOrDefault("dlq_stream", keys.telemetryStreams().get(0));
        return new StreamEntry(stream, letter.getOrDefault("dlq_id", "0-0"), EntryBody.of(fields));
    }
}
