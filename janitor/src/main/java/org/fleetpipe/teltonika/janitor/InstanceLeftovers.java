package org.fleetpipe.teltonika.janitor;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * What a dead instance leaves behind besides its registry entries, which the janitor hands on once
 * the instance's heartbeat is gone. The janitor knows only this hook, not what is handed on.
 */
public interface InstanceLeftovers {

    /** Nothing besides registry entries: a janitor of the registry alone. */
    InstanceLeftovers NONE = new InstanceLeftovers() {
        @Override
        public CompletionStage<Collection<String>> holders() {
            return CompletableFuture.completedFuture(List.of());
        }

        @Override
        public CompletionStage<Void> handOn(String deadInstanceId, LeftoverTally tally) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public String describe(LeftoverTally tally) {
            return "leftovers-handed-back=" + tally.handedBack() + " leftovers-failed=" + tally.failed();
        }

        @Override
        public String work() {
            return "leftover-hand-on";
        }
    };

    /** Ids of the instances, live or dead, that may have left something behind. */
    CompletionStage<? extends Collection<String>> holders();

    /**
     * Hands on what {@code deadInstanceId} left behind, in bounded steps, each re-checking that its
     * heartbeat is still missing; counts into {@code tally} as it goes, so a step that fails keeps
     * the count of the steps before it. What a failed step left is handed on at the next pass.
     */
    CompletionStage<Void> handOn(String deadInstanceId, LeftoverTally tally);

    /** The words for what one pass handed on, in the janitor's pass log line. */
    String describe(LeftoverTally tally);

    /** The name of this work in log lines (one word, dashed), e.g. what a dry run pauses. */
    String work();
}
