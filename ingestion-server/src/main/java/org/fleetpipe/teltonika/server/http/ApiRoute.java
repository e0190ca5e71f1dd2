package org.fleetpipe.teltonika.server.http;

/** Handles the API calls under one resource, e.g. {@code /api/v1/devices}. */
public interface ApiRoute {

    /** The first path segment after {@code /api/v1/}, e.g. {@code devices}. */
    String resource();

    /** Answers {@code call}; exactly one answer, possibly later from another thread. */
    void handle(ApiRequest call);
}
