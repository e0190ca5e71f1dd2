package org.fleetpipe.teltonika.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The JVM of each rendered Deployment fits its container's memory limit: heap + direct buffers +
 * metaspace + code cache + thread stacks + the JVM's own native memory, from the flags the
 * container really gets (the image's ENTRYPOINT and JDK_JAVA_OPTIONS, the container's
 * JDK_JAVA_OPTIONS winning). Over the limit the kernel kills the pod without a drain.
 */
class MemoryBudgetTest {

    private static final long MIB = 1024 * 1024;
    /**
     * Threads besides the device event loops: GC, JIT compilers, Lettuce, HTTP, timers. Measured
     * with 2,000 devices and a closed-loop burst: 26 threads in all with 1 CPU, 34 with 2.
     */
    private static final int JVM_THREADS = 40;
    /** Thread stack when no -Xss is given (Linux x86_64 and aarch64). */
    private static final long DEFAULT_STACK = MIB;
    /**
     * The JVM's anonymous memory outside the capped pools and the GC: symbols, the class-data
     * archive, internal tables and malloc outside NMT's view. Measured at about 56 MiB (RssAnon minus
     * the pools, 2,000 devices); shared libraries (22 MiB file-backed, reclaimable) not counted.
     */
    private static final long NATIVE_FIXED = 64 * MIB;
    /** GC data structures as a share of the heap: G1 reserved 81 MiB for a 1,128 MiB heap (7 %), Serial under 1 MiB. */
    private static final double GC_SHARE = 0.08;
    private static final String SERVER_IMAGE = "Dockerfile";
    private static final String BRIDGE_IMAGE = "Dockerfile.bridge";
    /**
     * The bridge's threads besides its lanes: the reader, chores, HTTP, Lettuce's I/O and
     * computation threads, the Kafka producer's sender, GC and JIT. Measured: 33 threads in all
     * (4 lanes included) for the Kafka sink, started and idle; the server's 40 kept as the bound.
     */
    private static final int BRIDGE_THREADS = 40;

    @ParameterizedTest
    @ValueSource(strings = {"base", "dev", "prod"})
    void jvm_whenDeploymentRendered_thenHeapDirectMetaspaceCodeStacksAndNativeFitTheMemoryLimit(String overlay)
            throws IOException {
        Manifests m = "base".equals(overlay) ? Manifests.base() : Manifests.overlay(overlay);
        JsonNode resources = m.container().path("resources");
        long limit = quantity(resources.path("limits").path("memory").asText());
        int cpus = (int) Math.ceil(cpu(resources.path("limits").path("cpu").asText()));
        String ioThreads = m.literalEnvironment().getOrDefault("IO_THREADS", "0");
        int eventLoops = Integer.parseInt(ioThreads) > 0 ? Integer.parseInt(ioThreads) : cpus;

        List<String> flags = effectiveFlags(jdkJavaOptions(m));
        Budget budget = Budget.of(flags, limit, JVM_THREADS + eventLoops);

        assertThat(budget.total()).as("%s: %s", overlay, budget).isLessThanOrEqualTo(limit);
        assertThat(budget.heap).as("%s: heap share of the limit (documented 40 to 60 %%): %s", overlay, budget)
                .isBetween((long) (limit * 0.40), (long) (limit * 0.60));
        assertThat(budget.direct).as("%s: room for Netty's buffers", overlay).isGreaterThanOrEqualTo(32 * MIB);
        // With reflective access Netty would keep no-cleaner buffers under a counter of its own, as
        // much again as MaxDirectMemorySize; 0 keeps every one of them a JDK direct buffer.
        assertThat(flag(flags, "-Dio.netty.maxDirectMemory=")).as("%s: Netty's buffers under the JDK's cap", overlay)
                .contains("0");
        assertThat(flag(flags, "-XX:MaxDirectMemorySize=")).as("%s: direct memory capped explicitly", overlay)
                .isPresent();
    }

    @ParameterizedTest
    @ValueSource(strings = {"bridge-kafka", "bridge-http", "bridge-mqtt", "bridge-postgres"})
    void bridgeJvm_whenDeploymentRendered_thenHeapDirectMetaspaceCodeStacksAndNativeFitTheMemoryLimit(String name)
            throws IOException {
        Manifests m = Manifests.bridges();
        JsonNode container = Manifests.containerOf(m.get("Deployment", name), "bridge");
        long limit = quantity(container.path("resources").path("limits").path("memory").asText());
        String options = null;
        for (JsonNode e : container.path("env")) {
            if ("JDK_JAVA_OPTIONS".equals(e.path("name").asText())) {
                options = e.path("value").asText(null);
            }
        }
        assertThat(options).as("%s: JDK_JAVA_OPTIONS a literal next to its limit", name).isNotNull();
        int lanes = Integer.parseInt(m.configMapData("teltonika-bridges").getOrDefault("BRIDGE_LANES", "4"));

        List<String> flags = effectiveFlags(BRIDGE_IMAGE, options);
        Budget budget = Budget.of(flags, limit, BRIDGE_THREADS + lanes);

        assertThat(budget.total()).as("%s: %s", name, budget).isLessThanOrEqualTo(limit);
        assertThat(budget.heap).as("%s: heap share of the limit: %s", name, budget)
                .isBetween((long) (limit * 0.35), (long) (limit * 0.60));
        assertThat(flag(flags, "-Dio.netty.maxDirectMemory=")).as("%s: Lettuce's buffers under the JDK's cap", name)
                .contains("0");
        assertThat(flag(flags, "-XX:MaxDirectMemorySize=")).as(name).isPresent();
    }

    @Test
    void bridgeImage_whenRunWithItsOwnDefault_thenFitsTheHalfGibibyteContainerItIsSizedFor() throws IOException {
        Budget budget = Budget.of(effectiveFlags(BRIDGE_IMAGE, dockerfileJdkJavaOptions(BRIDGE_IMAGE)), 512 * MIB,
                BRIDGE_THREADS + 4);

        assertThat(budget.total()).as("docker run -m 512m: %s", budget).isLessThanOrEqualTo(512 * MIB);
    }

    @Test
    void image_whenRunWithItsOwnDefault_thenFitsTheOneGibibyteContainerItIsSizedFor() throws IOException {
        Budget budget = Budget.of(effectiveFlags(dockerfileJdkJavaOptions()), 1024 * MIB, JVM_THREADS + 2);

        assertThat(budget.total()).as("docker run -m 1g: %s", budget).isLessThanOrEqualTo(1024 * MIB);
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev", "prod"})
    void jdkJavaOptions_whenOverlayRendered_thenALiteralOfTheContainerNextToItsLimit(String overlay) {
        JsonNode env = null;
        for (JsonNode e : Manifests.overlay(overlay).container().path("env")) {
            if ("JDK_JAVA_OPTIONS".equals(e.path("name").asText())) {
                env = e;
            }
        }

        assertThat(env).as("%s: JDK_JAVA_OPTIONS set for this limit, not the image default", overlay).isNotNull();
        assertThat(env.has("value")).as("a literal, so this test can check it").isTrue();
    }

    @Test
    void budget_whenDirectMemoryNotCapped_thenCountsTheHeapSizeAgainAsTheJvmDoes() {
        // Guards the parser and the rule the issue is about: without MaxDirectMemorySize the JVM
        // allows as much direct memory as heap, so MaxRAMPercentage=75 alone overshoots the limit.
        Budget old = Budget.of(List.of("-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError"), 1024 * MIB,
                JVM_THREADS + 2);

        assertThat(old.direct).isEqualTo(old.heap);
        assertThat(old.total()).isGreaterThan(1024 * MIB);
    }

    /** What the container's java gets: JDK_JAVA_OPTIONS first, then the ENTRYPOINT's flags (the last one wins). */
    private static List<String> effectiveFlags(String jdkJavaOptions) throws IOException {
        return effectiveFlags(SERVER_IMAGE, jdkJavaOptions);
    }

    private static List<String> effectiveFlags(String dockerfile, String jdkJavaOptions) throws IOException {
        List<String> flags = new ArrayList<>(Arrays.asList(jdkJavaOptions.trim().split("\\s+")));
        JsonNode entrypoint = new ObjectMapper().readTree(match(dockerfile, "(?m)^ENTRYPOINT (\\[.*])\\s*$"));
        assertThat(entrypoint.path(0).asText()).isEqualTo("java");
        for (int i = 1; i < entrypoint.size() && !"-jar".equals(entrypoint.path(i).asText()); i++) {
            flags.add(entrypoint.path(i).asText());
        }
        return flags;
    }

    private static String jdkJavaOptions(Manifests m) throws IOException {
        for (JsonNode e : m.container().path("env")) {
            if ("JDK_JAVA_OPTIONS".equals(e.path("name").asText())) {
                return e.path("value").asText();
            }
        }
        return dockerfileJdkJavaOptions();
    }

    private static String dockerfileJdkJavaOptions() throws IOException {
        return dockerfileJdkJavaOptions(SERVER_IMAGE);
    }

    private static String dockerfileJdkJavaOptions(String dockerfile) throws IOException {
        return match(dockerfile, "(?m)^ENV JDK_JAVA_OPTIONS=\"([^\"]*)\"\\s*$");
    }

    private static String match(String file, String regex) throws IOException {
        String dockerfile = Files.readString(Manifests.deployDir().resolve(file));
        Matcher m = Pattern.compile(regex).matcher(dockerfile);
        assertThat(m.find()).as("%s: %s", file, regex).isTrue();
        return m.group(1);
    }

    /** The JVM's memory pools for a set of flags in a container with {@code limit} bytes. */
    record Budget(long limit, long heap, long direct, long metaspace, long codeCache, int threads, long stack,
                  long nativeOther) {

        static Budget of(List<String> flags, long limit, int threads) {
            long heap = flag(flags, "-Xmx").map(MemoryBudgetTest::jvmSize)
                    .orElseGet(() -> (long) (limit * Double.parseDouble(
                            flag(flags, "-XX:MaxRAMPercentage=").orElse("25")) / 100));
            // Unset, the JVM allows as much direct memory as heap.
            long direct = flag(flags, "-XX:MaxDirectMemorySize=").map(MemoryBudgetTest::jvmSize).orElse(heap);
            // Unset, metaspace is unbounded: count the container.
            long metaspace = flag(flags, "-XX:MaxMetaspaceSize=").map(MemoryBudgetTest::jvmSize).orElse(limit);
            long codeCache = flag(flags, "-XX:ReservedCodeCacheSize=").map(MemoryBudgetTest::jvmSize)
                    .orElse(240 * MIB);
            long stack = flag(flags, "-Xss").map(MemoryBudgetTest::jvmSize).orElse(DEFAULT_STACK);
            return new Budget(limit, heap, direct, metaspace, codeCache, threads, stack,
                    NATIVE_FIXED + (long) (heap * GC_SHARE));
        }

        long total() {
            return heap + direct + metaspace + codeCache + threads * stack + nativeOther;
        }

        @Override
        public String toString() {
            return String.format("heap %d + direct %d + metaspace %d + code cache %d + %d threads x %d KiB stack"
                            + " + native %d = %d MiB of a %d MiB limit", heap / MIB, direct / MIB, metaspace / MIB,
                    codeCache / MIB, threads, stack / 1024, nativeOther / MIB, total() / MIB, limit / MIB);
        }
    }

    private static Optional<String> flag(List<String> flags, String prefix) {
        String value = null;
        for (String f : flags) {
            if (f.startsWith(prefix)) {
                value = f.substring(prefix.length());
            }
        }
        return Optional.ofNullable(value);
    }

    /** A JVM size: 512k, 128m, 1g or bytes. */
    static long jvmSize(String text) {
        String t = text.trim().toLowerCase();
        long unit = switch (t.charAt(t.length() - 1)) {
            case 'k' -> 1024;
            case 'm' -> MIB;
            case 'g' -> 1024 * MIB;
            default -> 1;
        };
        return Long.parseLong(unit == 1 ? t : t.substring(0, t.length() - 1)) * unit;
    }

    /** A Kubernetes memory quantity: 512Mi, 1Gi, 1536Mi, 2G, 500M or bytes. */
    static long quantity(String text) {
        Matcher m = Pattern.compile("([0-9.]+)(Ki|Mi|Gi|Ti|k|M|G|T)?").matcher(text.trim());
        assertThat(m.matches()).as("memory quantity %s", text).isTrue();
        double n = Double.parseDouble(m.group(1));
        long unit = switch (m.group(2) == null ? "" : m.group(2)) {
            case "Ki" -> 1024L;
            case "Mi" -> MIB;
            case "Gi" -> 1024 * MIB;
            case "Ti" -> 1024 * 1024 * MIB;
            case "k" -> 1000L;
            case "M" -> 1000_000L;
            case "G" -> 1000_000_000L;
            case "T" -> 1000_000_000_000L;
            default -> 1L;
        };
        return (long) (n * unit);
    }

    /** A Kubernetes CPU quantity: 2, 1.5 or 500m. */
    static double cpu(String text) {
        String t = text.trim();
        return t.endsWith("m") ? Double.parseDouble(t.substring(0, t.length() - 1)) / 1000 : Double.parseDouble(t);
    }
}
