package org.fleetpipe.teltonika.simulator.device;

import java.util.List;

/**
 * A closed loop through waypoints that a simulated vehicle drives round and round. Distances use
 * the equirectangular approximation: exact enough for a few kilometres of city streets.
 */
public final class Route {

    private static final double METRES_PER_DEGREE_LAT = 110_574.0;
    private static final double METRES_PER_DEGREE_LON_AT_EQUATOR = 111_320.0;

    private final List<RoutePoint> waypoints;
    /** cumulative[i] = distance from waypoint 0 to waypoint i; cumulative[n] = whole loop. */
    private final double[] cumulative;
    /** headings[i] = direction of travel from waypoint i to the next, worked out once (atan2 is not cheap). */
    private final double[] headings;

    public Route(List<RoutePoint> waypoints) {
        if (waypoints.size() < 2) {
            throw new IllegalArgumentException("a route needs at least two waypoints");
        }
        this.waypoints = List.copyOf(waypoints);
        int n = waypoints.size();
        cumulative = new double[n + 1];
        for (int i = 0; i < n; i++) {
            cumulative[i + 1] = cumulative[i] + distance(waypoints.get(i), waypoints.get((i + 1) % n));
        }
        headings = new double[n];
        for (int i = 0; i < n; i++) {
            headings[i] = heading(waypoints.get(i), waypoints.get((i + 1) % n));
        }
        if (cumulative[n] <= 0) {
            throw new IllegalArgumentException("a route needs waypoints at different places");
        }
    }

    /** A loop of about 9 km through Vilnius, where Teltonika trackers are made. */
    public static Route vilniusLoop() {
        return new Route(List.of(
                new RoutePoint(54.6872, 25.2797, 0),
                new RoutePoint(54.6991, 25.2652, 0),
                new RoutePoint(54.7118, 25.2904, 0),
                new RoutePoint(54.7035, 25.3177, 0),
                new RoutePoint(54.6861, 25.3109, 0),
                new RoutePoint(54.6779, 25.2952, 0)));
    }

    /** Length of one lap in metres. */
    public double length() {
        return cumulative[cumulative.length - 1];
    }

    /** Where a vehicle is after driving {@code distance} metres from waypoint 0 (laps wrap around). */
    public RoutePoint at(double distance) {
        double d = distance % length();
        if (d < 0) {
            d += length();
        }
        int n = waypoints.size();
        int segment = 0;
        while (segment < n - 1 && cumulative[segment + 1] <= d) {
            segment++;
        }
        RoutePoint from = waypoints.get(segment);
        RoutePoint to = waypoints.get((segment + 1) % n);
        double segmentLength = cumulative[segment + 1] - cumulative[segment];
        double f = segmentLength == 0 ? 0 : (d - cumulative[segment]) / segmentLength;
        return new RoutePoint(from.latitude() + f * (to.latitude() - from.latitude()),
                from.longitude() + f * (to.longitude() - from.longitude()), headings[segment]);
    }

    static double distance(RoutePoint a, RoutePoint b) {
        double dy = (b.latitude() - a.latitude()) * METRES_PER_DEGREE_LAT;
        double dx = (b.longitude() - a.longitude()) * METRES_PER_DEGREE_LON_AT_EQUATOR
                * Math.cos(Math.toRadians((a.latitude() + b.latitude()) / 2));
        return Math.hypot(dx, dy);
    }

    private static double heading(RoutePoint from, RoutePoint to) {
        double dy = to.latitude() - from.latitude();
        double dx = (to.longitude() - from.longitude()) * Math.cos(Math.toRadians(from.latitude()));
        double degrees = Math.toDegrees(Math.atan2(dx, dy));
        return degrees < 0 ? degrees + 360 : degrees;
    }
}
