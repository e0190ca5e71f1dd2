package org.fleetpipe.teltonika.testkit.junit;

import java.time.Duration;
import org.fleetpipe.teltonika.redislauncher.LoopbackPorts;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;

/**
 * A {@code redis:7-alpine} container. The only class touching Testcontainers, so that modules without it on the test
 * classpath never load it.
 */
final class ContainerBackend implements RedisBackend {

    private static final int REDIS_PORT = 6379;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final GenericContainer<?> container;
    private final String host;
    private final int port;

    private ContainerBackend(GenericContainer<?> container) {
        this.container = container;
        this.host = container.getHost();
        this.port = container.getMappedPort(REDIS_PORT);
    }

    static boolean dockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    @SuppressWarnings("resource") // closed by close()
    static RedisBackend startNew() {
        // A fixed host port, unlike Testcontainers' random mapping, survives a container stop and start.
        int hostPort = LoopbackPorts.free();
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse("redis:7-alpine"))
                .withExposedPorts(REDIS_PORT)
                .withCommand("redis-server", "--save", "", "--appendonly", "no")
                .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withPortBindings(
                        new PortBinding(Ports.Binding.bindPort(hostPort), ExposedPort.tcp(REDIS_PORT))))
                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1))
                .withStartupTimeout(TIMEOUT);
        try {
            container.start();
            return new ContainerBackend(container);
        } catch (RuntimeException e) {
            container.close();
            throw e;
        }
    }

    @Override
    public String uri() {
        return "redis://" + host + ":" + port;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public boolean isRunning() {
        Boolean running = container.getDockerClient().inspectContainerCmd(container.getContainerId()).exec()
                .getState().getRunning();
        return Boolean.TRUE.equals(running);
    }

    @Override
    public void stop() {
        // Not container.stop(): that removes the container, and with it the data and the port binding.
        container.getDockerClient().stopContainerCmd(container.getContainerId()).withTimeout(2).exec();
        RedisBackend.await(() -> !RedisBackend.answers(host, port), TIMEOUT, uri() + " stops answering");
    }

    @Override
    public void start() {
        if (!isRunning()) {
            container.getDockerClient().startContainerCmd(container.getContainerId()).exec();
        }
        RedisBackend.await(() -> RedisBackend.answers(host, port), TIMEOUT, uri() + " answers");
    }

    @Override
    public String description() {
        return "Testcontainers redis:7-alpine container " + container.getContainerId();
    }

    @Override
    public void close() {
        container.close();
    }

}
