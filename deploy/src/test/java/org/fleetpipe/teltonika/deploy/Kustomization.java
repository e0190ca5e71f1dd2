package org.fleetpipe.teltonika.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The part of Kustomize this tree uses, resolved by hand so the manifest checks run without
 * kubectl: {@code resources} (files and directories), {@code patches} (strategic-merge patch
 * files addressed by their own kind and name), {@code replicas}, {@code images} and
 * {@code namespace}. Any other field fails loudly instead of being ignored: a check against a
 * half-resolved tree would pass for the wrong reason.
 */
final class Kustomization {

    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private static final Set<String> SUPPORTED =
            Set.of("apiVersion", "kind", "resources", "patches", "replicas", "images", "namespace");

    /** Kinds the namespace transformer leaves alone. */
    private static final Set<String> CLUSTER_SCOPED = Set.of("Namespace", "ClusterRole", "ClusterRoleBinding",
            "CustomResourceDefinition", "PriorityClass", "StorageClass", "PersistentVolume");

    private static final Set<String> WORKLOADS = Set.of("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet");

    private Kustomization() {
    }

    /** The resources the kustomization in {@code dir} renders, in order. */
    static List<ObjectNode> render(Path dir) {
        ObjectNode k = (ObjectNode) readAll(dir.resolve("kustomization.yaml")).get(0);
        for (Iterator<String> it = k.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!SUPPORTED.contains(field)) {
                throw new IllegalStateException(dir + "/kustomization.yaml uses '" + field
                        + "', which the test's resolver does not apply; extend Kustomization or avoid it");
            }
        }
        List<ObjectNode> out = new ArrayList<>();
        for (JsonNode entry : k.path("resources")) {
            Path p = dir.resolve(entry.asText()).normalize();
            if (Files.isDirectory(p)) {
                out.addAll(render(p));
            } else {
                readAll(p).forEach(doc -> out.add((ObjectNode) doc));
            }
        }
        for (JsonNode patch : k.path("patches")) {
            if (patch.size() != 1 || !patch.has("path")) {
                throw new IllegalStateException(dir + ": only '- path: file' patches are supported, got " + patch);
            }
            for (JsonNode doc : readAll(dir.resolve(patch.get("path").asText()))) {
                ObjectNode target = find(out, doc.path("kind").asText(), doc.path("metadata").path("name").asText());
                StrategicMerge.apply(target, (ObjectNode) doc);
            }
        }
        for (JsonNode r : k.path("replicas")) {
            ObjectNode target = out.stream()
                    .filter(o -> WORKLOADS.contains(o.path("kind").asText()))
                    .filter(o -> o.path("metadata").path("name").asText().equals(r.path("name").asText()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException(dir + ": replicas names no workload: " + r));
            ((ObjectNode) target.get("spec")).put("replicas", r.path("count").asInt());
        }
        for (JsonNode image : k.path("images")) {
            out.stream().filter(o -> WORKLOADS.contains(o.path("kind").asText()))
                    .forEach(o -> retag(o.path("spec").path("template").path("spec"), image));
        }
        if (k.hasNonNull("namespace")) {
            String ns = k.get("namespace").asText();
            out.stream().filter(o -> !CLUSTER_SCOPED.contains(o.path("kind").asText()))
                    .forEach(o -> o.withObjectProperty("metadata").put("namespace", ns));
        }
        return out;
    }

    /** Every YAML document in a file, empty documents dropped. */
    static List<JsonNode> readAll(Path file) {
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
            List<JsonNode> docs = new ArrayList<>();
            while (it.hasNext()) {
                JsonNode doc = it.next();
                if (doc != null && doc.isObject() && doc.size() > 0) {
                    docs.add(doc);
                }
            }
            return docs;
        } catch (IOException e) {
            throw new UncheckedIOException(file.toString(), e);
        }
    }

    static List<ObjectNode> readAll(String yaml) {
        try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml)) {
            List<ObjectNode> docs = new ArrayList<>();
            while (it.hasNext()) {
                JsonNode doc = it.next();
                if (doc != null && doc.isObject() && doc.size() > 0) {
                    docs.add((ObjectNode) doc);
                }
            }
            return docs;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ObjectNode find(List<ObjectNode> resources, String kind, String name) {
        return resources.stream()
                .filter(o -> o.path("kind").asText().equals(kind))
                .filter(o -> o.path("metadata").path("name").asText().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + kind + " named " + name));
    }

    /** kustomize's images transformer: match on the name without tag or digest. */
    private static void retag(JsonNode podSpec, JsonNode image) {
        for (String list : List.of("initContainers", "containers")) {
            for (JsonNode c : podSpec.path(list)) {
                String ref = c.path("image").asText();
                int at = ref.indexOf('@');
                String noDigest = at < 0 ? ref : ref.substring(0, at);
                int colon = noDigest.lastIndexOf(':');
                boolean tagged = colon > noDigest.lastIndexOf('/');
                String name = tagged ? noDigest.substring(0, colon) : noDigest;
                if (!name.equals(image.path("name").asText())) {
                    continue;
                }
                String tag = tagged ? noDigest.substring(colon) : "";
                String newName = image.hasNonNull("newName") ? image.get("newName").asText() : name;
                if (image.hasNonNull("newTag")) {
                    tag = ":" + image.get("newTag").asText();
                }
                if (image.hasNonNull("digest")) {
                    tag = "@" + image.get("digest").asText();
                }
                ((ObjectNode) c).put("image", newName + tag);
            }
        }
    }

    /** Strategic merge for the fields these manifests patch. */
    static final class StrategicMerge {

        /** List fields merged element by element, keyed by this field (as in the Kubernetes API schema). */
        private static final Map<String, String> MERGE_KEYS = Map.of(
                "containers", "name",
                "initContainers", "name",
                "env", "name",
                "volumes", "name",
                "volumeMounts", "mountPath",
                "imagePullSecrets", "name");

        private StrategicMerge() {
        }

        static void apply(ObjectNode target, ObjectNode patch) {
            for (Map.Entry<String, JsonNode> e : patch.properties()) {
                String key = e.getKey();
                JsonNode value = e.getValue();
                if (key.startsWith("$")) {
                    throw new IllegalStateException("patch directive " + key + " is not supported by the test's resolver");
                }
                JsonNode current = target.get(key);
                if (value.isNull()) {
                    target.remove(key);
                } else if (value.isObject() && current != null && current.isObject()) {
                    apply((ObjectNode) current, (ObjectNode) value);
                } else if (value.isArray() && current != null && current.isArray() && mergeKey(key, value) != null) {
                    mergeList((ArrayNode) current, (ArrayNode) value, mergeKey(key, value));
                } else {
                    target.set(key, value.deepCopy());
                }
            }
        }

        private static String mergeKey(String field, JsonNode list) {
            if ("ports".equals(field)) {
                // ContainerPort merges on containerPort, ServicePort on port.
                return list.size() > 0 && list.get(0).has("containerPort") ? "containerPort" : "port";
            }
            return MERGE_KEYS.get(field);
        }

        private static void mergeList(ArrayNode current, ArrayNode patch, String key) {
            for (JsonNode item : patch) {
                JsonNode id = item.get(key);
                ObjectNode match = null;
                for (JsonNode existing : current) {
                    if (id != null && id.equals(existing.get(key))) {
                        match = (ObjectNode) existing;
                    }
                }
                if (match != null) {
                    apply(match, (ObjectNode) item);
                } else {
                    current.add(item.deepCopy());
                }
            }
        }
    }
}
