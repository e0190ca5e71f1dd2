package org.fleetpipe.teltonika.server.parts;

/**
 * One piece of the running server, owning its fields: started after the parts it uses, and given
 * its share of each {@link StopStage} of the stop, the parts taken in reverse order of their start.
 */
public interface Part {

    /** Builds and starts what the part owns; the parts started before it are running. */
    void start() throws Exception;

    /** Its share of one stage of the stop; called for every stage, in their order. */
    default void stop(StopStage stage, StopBudget budget) throws InterruptedException {
    }
}
