package org.fleetpipe.teltonika.bridge.stream;

/** A stream entry's id with the stream it belongs to: ids are unique within one partition's stream only. */
public record EntryId(String stream, String id) {}
