package org.fleetpipe.teltonika.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one container's command of a rendered workload on this machine, as far as a shell script
 * can tell: its ConfigMap and emptyDir mounts under a temporary root (absolute paths in the command
 * and the env point there), its env ({@code fieldRef metadata.name} is the pod name,
 * {@code envFrom} ConfigMaps), and a directory of stand-ins put first on the PATH.
 */
final class LocalContainer {

    record Result(int exitCode, String stderr) {
    }

    private final Manifests manifests;
    private final JsonNode workload;
    private final JsonNode container;
    private final Path root;

    LocalContainer(Manifests manifests, JsonNode workload, String containerName, Path root) {
        this.manifests = manifests;
        this.workload = workload;
        this.container = Manifests.containerOf(workload, containerName);
        this.root = root;
    }

    /** A path of the container, on this machine. */
    Path path(String containerPath) {
        return root.resolve(containerPath.replaceFirst("^/+", ""));
    }

    Result run(String podName, Path stubs, Map<String, String> extraEnv) throws IOException, InterruptedException {
        mountVolumes();
        List<String> command = new ArrayList<>();
        container.path("command").forEach(a -> command.add(inRoot(a.asText())));
        container.path("args").forEach(a -> command.add(inRoot(a.asText())));

        ProcessBuilder pb = new ProcessBuilder(command).directory(root.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> !k.equals("PATH"));
        env.put("PATH", stubs + File.pathSeparator + System.getenv("PATH"));
        for (JsonNode from : container.path("envFrom")) {
            env.putAll(manifests.configMapData(from.path("configMapRef").path("name").asText()));
        }
        for (JsonNode e : container.path("env")) {
            if (e.has("value")) {
                env.put(e.path("name").asText(), inRoot(e.path("value").asText()));
            } else if ("metadata.name".equals(e.path("valueFrom").path("fieldRef").path("fieldPath").asText())) {
                env.put(e.path("name").asText(), podName);
            } else if (e.path("valueFrom").has("secretKeyRef")) {
                // A stand-in that names where the value would come from.
                JsonNode ref = e.path("valueFrom").path("secretKeyRef");
                env.put(e.path("name").asText(), ref.path("name").asText() + "/" + ref.path("key").asText());
            } else {
                throw new IllegalStateException("env " + e + " is not supported by LocalContainer");
            }
        }
        env.putAll(extraEnv);

        Path stderr = Files.createTempFile(root, "stderr", ".txt");
        Process p = pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(stderr.toFile()).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("container command did not finish: " + command);
        }
        return new Result(p.exitValue(), Files.readString(stderr, StandardCharsets.UTF_8));
    }

    private void mountVolumes() throws IOException {
        Map<String, JsonNode> volumes = new HashMap<>();
        Manifests.podSpecOf(workload).path("volumes").forEach(v -> volumes.put(v.path("name").asText(), v));
        for (JsonNode mount : container.path("volumeMounts")) {
            Path dir = path(mount.path("mountPath").asText());
            Files.createDirectories(dir);
            JsonNode volume = volumes.get(mount.path("name").asText());
            if (volume == null || !volume.has("configMap")) {
                continue; // emptyDir or a claim: an empty directory
            }
            Map<String, String> data = manifests.configMapData(volume.path("configMap").path("name").asText());
            if (volume.path("configMap").has("items")) {
                for (JsonNode item : volume.path("configMap").path("items")) {
                    Files.writeString(dir.resolve(item.path("path").asText()), data.get(item.path("key").asText()));
                }
            } else {
                for (Map.Entry<String, String> e : data.entrySet()) {
                    Files.writeString(dir.resolve(e.getKey()), e.getValue());
                }
            }
        }
    }

    private String inRoot(String value) {
        return value.startsWith("/") ? path(value).toString() : value;
    }
}
