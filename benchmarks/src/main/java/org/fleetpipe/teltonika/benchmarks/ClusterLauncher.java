package org.fleetpipe.teltonika.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.fleetpipe.teltonika.redislauncher.LocalRedisServer.Binary;
import org.fleetpipe.teltonika.testkit.cluster.ClusterNode;
import org.fleetpipe.teltonika.testkit.cluster.LocalRedisCluster;

/**
 * Starts a {@link LocalRedisCluster} for bench/cluster-benchmark.sh, prints its seed URI and each primary, and keeps
 * it up until the process is killed (SIGTERM stops every node). Usage:
 * {@code ClusterLauncher primaries [replicas-per-primary=0] [node-timeout-ms=15000] [redis-server path]}.
 */
public final class ClusterLauncher {

    private ClusterLauncher() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1 || args.length > 4) {
            System.err.println("usage: ClusterLauncher primaries [replicas-per-primary=0] [node-timeout-ms=15000]"
                    + " [redis-server path]");
            System.exit(2);
        }
        // Redis's own default of 15 s, not the tests' 2 s: a node busy on a shared 2-core machine must not be
        // flagged failing, which would stop the whole cluster's writes (CLUSTERDOWN) in the middle of a run.
        LocalRedisCluster.Builder builder = LocalRedisCluster.builder()
                .primaries(Integer.parseInt(args[0]))
                .replicasPerPrimary(args.length > 1 ? Integer.parseInt(args[1]) : 0)
                .nodeTimeout(Duration.ofMillis(args.length > 2 ? Long.parseLong(args[2]) : 15_000));
        if (args.length > 3) {
            builder.binary(Binary.explicit(Path.of(args[3])));
        }
        LocalRedisCluster cluster = builder.build();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cluster.close();
            stopped.countDown();
        }, "cluster-launcher-stop"));
        cluster.start();
        for (ClusterNode node : cluster.primaries()) {
            System.out.println("primary " + node.hostAndPort() + " " + node.slots());
        }
        // The script waits for this line: everything above is printed by then.
        System.out.println("cluster " + cluster.uri());
        System.out.flush();
        stopped.await();
    }
}
