package org.fleetpipe.teltonika.consumer;

import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.models.stream.PendingMessage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where an entry goes that the handler failed on {@code --max-deliveries} times: a stream of its
 * own ({@code dlq:consumer:<group>} by default), capped, so that one entry the handler can never
 * take is acknowledged and stops holding the group's retention back. Each dead letter holds the
 * entry's fields as they were, and {@code dlq_id}, {@code dlq_stream}, {@code dlq_group},
 * {@code dlq_consumer}, {@code dlq_deliveries} and {@code dlq_error} beside them.
 */
final class DeadLetterStream {

    /** Roughly this many dead letters are kept (XADD MAXLEN ~): the newest ones. */
    static final long MAX_LEN = 10_000;
    /** The error text is cut here: a stack of causes or a huge message must not bloat Redis. */
    static final int MAX_ERROR_CHARS = 1_000;

    private final RedisClusterCommands<String, String> redis;
    private final ConsumerOptions options;

    DeadLetterStream(RedisClusterCommands<String, String> redis, ConsumerOptions options) {
        this.redis = redis;
        this.options = options;
    }

    /**
     * How often the group delivered {@code id} (XPENDING's delivery count: one for XREADGROUP, one more
     * for each XAUTOCLAIM or re-read of the consumer's own pending entries); 0 when it is not pending.
     */
    long deliveries(String stream, String id) {
        List<PendingMessage> pending = redis.xpending(stream, options.group(), Range.create(id, id),
                Limit.from(1));
        return pending.isEmpty() ? 0 : pending.get(0).getRedeliveryCount();
    }

    /** Whether an entry delivered {@code deliveries} times that failed again is to be given up on. */
    boolean exhausted(long deliveries) {
        return deliveries >= options.maxDeliveries();
    }

    /** Adds {@code entry} to the dead-letter stream; the caller acknowledges it afterwards. */
    void add(StreamMessage<String, String> entry, long deliveries, Exception error) {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("dlq_id", entry.getId());
        body.put("dlq_stream", entry.getStream());
        body.put("dlq_group", options.group());
        body.put("dlq_consumer", options.consumer());
        body.put("dlq_deliveries", String.valueOf(deliveries));
        String text = String.valueOf(error);
        body.put("dlq_error", text.length() > MAX_ERROR_CHARS ? text.substring(0, MAX_ERROR_CHARS) : text);
        entry.getBody().forEach(body::putIfAbsent);
        redis.xadd(options.deadLetterStream(), XAddArgs.Builder.maxlen(MAX_LEN).approximateTrimming(), body);
    }
}
