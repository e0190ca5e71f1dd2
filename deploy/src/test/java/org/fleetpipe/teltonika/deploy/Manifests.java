package org.fleetpipe.teltonika.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** One rendered overlay, with the lookups the checks need. */
final class Manifests {

    static final String DEPLOYMENT = "teltonika-ingestion";
    static final String CONTAINER = "ingestion-server";

    /** deploy/ (the module directory): surefire passes it; from an IDE the working directory is used. */
    static Path deployDir() {
        Path dir = Path.of(System.getProperty("deploy.dir", "")).toAbsolutePath();
        if (!Files.isDirectory(dir.resolve("k8s"))) {
            dir = dir.resolve("deploy");
        }
        return dir;
    }

    static Path repoDir() {
        return deployDir().getParent();
    }

    static Path overlayDir(String overlay) {
        return deployDir().resolve("k8s/overlays").resolve(overlay);
    }

    static Path serverResources() {
        return repoDir().resolve("ingestion-server/src/main/resources");
    }

    final String name;
    final List<ObjectNode> resources;

    Manifests(String name, List<ObjectNode> resources) {
        this.name = name;
        this.resources = resources;
    }

    static Manifests overlay(String overlay) {
        return new Manifests(overlay, Kustomization.render(overlayDir(overlay)));
    }

    static Manifests base() {
        return new Manifests("base", Kustomization.render(deployDir().resolve("k8s/base")));
    }

    /** The bridges' own kustomization (k8s/bridges), applied next to an overlay. */
    static Manifests bridges() {
        return new Manifests("bridges", Kustomization.render(deployDir().resolve("k8s/bridges")));
    }

    /** "base", "bridges", or an overlay's name. */
    static Manifests tree(String name) {
        return switch (name) {
            case "base" -> base();
            case "bridges" -> bridges();
            default -> overlay(name);
        };
    }

    ObjectNode get(String kind, String name) {
        return Kustomization.find(resources, kind, name);
    }

    List<ObjectNode> all(String kind) {
        return resources.stream().filter(o -> o.path("kind").asText().equals(kind)).collect(Collectors.toList());
    }

    Optional<ObjectNode> maybe(String kind, String name) {
        return all(kind).stream().filter(o -> o.path("metadata").path("name").asText().equals(name)).findFirst();
    }

    ObjectNode deployment() {
        return get("Deployment", DEPLOYMENT);
    }

    JsonNode podSpec() {
        return deployment().path("spec").path("template").path("spec");
    }

    JsonNode container() {
        for (JsonNode c : podSpec().path("containers")) {
            if (CONTAINER.equals(c.path("name").asText())) {
                return c;
            }
        }
        throw new AssertionError(name + ": the Deployment has no container named " + CONTAINER);
    }

    Map<String, String> podLabels() {
        return strings(deployment().path("spec").path("template").path("metadata").path("labels"));
    }

    /** The container port a Service targetPort or probe port refers to (by name or number). */
    Optional<JsonNode> containerPort(JsonNode ref, String protocol) {
        for (JsonNode p : container().path("ports")) {
            boolean matches = ref.isNumber() ? p.path("containerPort").asInt() == ref.asInt()
                    : ref.asText().equals(p.path("name").asText());
            if (matches && protocol.equals(p.path("protocol").asText("TCP"))) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * The environment the container gets from literal values and envFrom ConfigMaps (Secret
     * references are left out: their values are not in git, except the dev placeholder).
     */
    Map<String, String> literalEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (JsonNode from : container().path("envFrom")) {
            if (from.has("configMapRef")) {
                env.putAll(strings(get("ConfigMap", from.path("configMapRef").path("name").asText()).path("data")));
            }
        }
        for (JsonNode e : container().path("env")) {
            if (e.has("value")) {
                env.put(e.path("name").asText(), e.path("value").asText());
            }
        }
        return env;
    }

    /** Deployments and StatefulSets, in render order. */
    List<ObjectNode> workloads() {
        return resources.stream().filter(o -> Set.of("Deployment", "StatefulSet").contains(o.path("kind").asText()))
                .collect(Collectors.toList());
    }

    Map<String, String> configMapData(String name) {
        return strings(get("ConfigMap", name).path("data"));
    }

    static JsonNode podSpecOf(JsonNode workload) {
        return workload.path("spec").path("template").path("spec");
    }

    static Map<String, String> podLabelsOf(JsonNode workload) {
        return strings(workload.path("spec").path("template").path("metadata").path("labels"));
    }

    static JsonNode containerOf(JsonNode workload, String name) {
        for (JsonNode c : podSpecOf(workload).path("containers")) {
            if (name.equals(c.path("name").asText())) {
                return c;
            }
        }
        throw new AssertionError(workload.path("metadata").path("name").asText() + " has no container named " + name);
    }

    /** The DNS names of a StatefulSet's pods through its headless Service: {@code <name>-<i>.<serviceName>}. */
    static List<String> podHostNames(JsonNode statefulSet) {
        String name = statefulSet.path("metadata").path("name").asText();
        String service = statefulSet.path("spec").path("serviceName").asText();
        List<String> hosts = new ArrayList<>();
        for (int i = 0; i < statefulSet.path("spec").path("replicas").asInt(1); i++) {
            hosts.add(name + "-" + i + "." + service);
        }
        return hosts;
    }

    static Map<String, String> strings(JsonNode map) {
        Map<String, String> out = new LinkedHashMap<>();
        map.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    @Override
    public String toString() {
        return name;
    }
}
