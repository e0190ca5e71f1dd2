package org.fleetpipe.teltonika.simulator.device;

/** A position on a route with the direction of travel there (degrees from north). */
public record RoutePoint(double latitude, double longitude, double headingDegrees) {

    /** Latitude in the wire's unit, degrees x 10^7. */
    public int latitudeE7() {
        return (int) Math.round(latitude * 1e7);
    }

    /** Longitude in the wire's unit, degrees x 10^7. */
    public int longitudeE7() {
        return (int) Math.round(longitude * 1e7);
    }
}
