package org.fleetpipe.teltonika.server.command;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.time.Duration;
import org.fleetpipe.teltonika.server.limits.TokenBucket;

/**
 * What a device sends on its own (Codec 13 and 15 messages, replies nobody waits for, frames of other
 * types): at most so many stored per connection and minute, each text cut to a maximum length, and
 * log lines about them at most one per connection and minute and a few per second in all, so one
 * chatty or hostile device can neither flood device:messages nor the log.
 */
public final class UnsolicitedMessages {

    private static final AttributeKey<Budgets> BUDGETS = AttributeKey.valueOf(UnsolicitedMessages.class, "budgets");

    private final int perMinute;
    private final int maxTextChars;
    private final TokenBucket logLines = new TokenBucket(10, Duration.ofSeconds(1));

    public UnsolicitedMessages(int perMinute, int maxTextChars) {
        this.perMinute = perMinute;
        this.maxTextChars = maxTextChars;
    }

    /** The two budgets of one connection, kept on its channel. */
    private record Budgets(TokenBucket messages, TokenBucket logLines) {
    }

    /** True when {@code channel} may store one more message now (and counts it). */
    boolean mayStore(Channel channel) {
        return budgets(channel).messages().tryTake();
    }

    /** True when a line about {@code channel} may be logged now. */
    boolean mayLog(Channel channel) {
        return budgets(channel).logLines().tryTake() && logLines.tryTake();
    }

    /** {@code text} cut to the stored maximum. */
    String stored(String text) {
        return text.length() <= maxTextChars ? text : text.substring(0, maxTextChars);
    }

    int perMinute() {
        return perMinute;
    }

    private Budgets budgets(Channel channel) {
        Budgets budgets = channel.attr(BUDGETS).get();
        if (budgets == null) {
            budgets = new Budgets(new TokenBucket(perMinute, Duration.ofMinutes(1)),
                    new TokenBucket(1, Duration.ofMinutes(1)));
            Budgets raced = channel.attr(BUDGETS).setIfAbsent(budgets);
            if (raced != null) {
                budgets = raced;
            }
        }
        return budgets;
    }
}
