package org.fleetpipe.teltonika.codec.testing;

import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Netty's leak detector, installed through {@code -Dio.netty.customResourceLeakDetector}, that also
 * keeps every report so a test can fail on it instead of a log line going unnoticed.
 */
public final class RecordingLeakDetector<T> extends ResourceLeakDetector<T> {

    private static final List<String> LEAKS = new CopyOnWriteArrayList<>();

    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    public RecordingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval);
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        LEAKS.add("LEAK: " + resourceType + records);
        super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        LEAKS.add("LEAK: " + resourceType + " (untraced)");
        super.reportUntracedLeak(resourceType);
    }

    /** Returns and forgets the leaks reported so far. */
    public static List<String> drain() {
        List<String> copy = List.copyOf(LEAKS);
        LEAKS.removeAll(copy);
        return copy;
    }
}
