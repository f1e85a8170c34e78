package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.PackageFixture.JSON;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.ContainerNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Edits of a package's JSON for {@link EvidenceCorpus}: reordering members, swapping array items, and
 * changing the node at a JSON pointer one way at a time. Knows nothing of what a package means.
 */
final class PackageEdits {

    private PackageEdits() {
    }

    static ArrayNode array(ObjectNode p, String name) {
        return (ArrayNode) p.get(name);
    }

    static void swap(ArrayNode array, int i, int j) {
        JsonNode t = array.get(i);
        array.set(i, array.get(j));
        array.set(j, t);
    }

    static ObjectNode edit(ObjectNode pack, Consumer<ObjectNode> change) {
        ObjectNode copy = pack.deepCopy();
        change.accept(copy);
        return copy;
    }

    static Map<String, JsonNode> members(ObjectNode o) {
        Map<String, JsonNode> m = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : o.properties()) {
            m.put(e.getKey(), e.getValue());
        }
        return m;
    }

    static ObjectNode sorted(ObjectNode pack) {
        ObjectNode out = JSON.createObjectNode();
        new TreeMap<>(members(pack)).forEach(out::set);
        return out;
    }

    static ObjectNode reversed(ObjectNode pack) {
        List<Map.Entry<String, JsonNode>> all = new ArrayList<>(members(pack).entrySet());
        ObjectNode out = JSON.createObjectNode();
        for (int i = all.size() - 1; i >= 0; i--) {
            out.set(all.get(i).getKey(), all.get(i).getValue());
        }
        return out;
    }

    static ObjectNode moveFirst(ObjectNode pack, String member) {
        ObjectNode out = JSON.createObjectNode();
        out.set(member, pack.get(member));
        members(pack).forEach((k, v) -> {
            if (!k.equals(member)) {
                out.set(k, v);
            }
        });
        return out;
    }

    static ObjectNode moveLast(ObjectNode pack, String member) {
        ObjectNode out = JSON.createObjectNode();
        members(pack).forEach((k, v) -> {
            if (!k.equals(member)) {
                out.set(k, v);
            }
        });
        out.set(member, pack.get(member));
        return out;
    }

    /** JSON pointers of every node below the root, in document order. */
    static List<String> pointers(JsonNode root) {
        List<String> out = new ArrayList<>();
        collect(root, "", out);
        return out;
    }

    static void collect(JsonNode node, String at, List<String> out) {
        if (node.isObject()) {
            for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                String name = it.next();
                String child = at + "/" + name;
                out.add(child);
                collect(node.get(name), child, out);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String child = at + "/" + i;
                out.add(child);
                collect(node.get(i), child, out);
            }
        }
    }

    /** One way to change the node at a pointer. */
    enum Mutation {
        REMOVE, NULL, CHANGE, RETYPE;

        /** Changes the node in {@code root}; false when the change does not apply to it. */
        boolean apply(ObjectNode root, String pointer) {
            int cut = pointer.lastIndexOf('/');
            JsonNode parent = root.at(pointer.substring(0, cut));
            String last = pointer.substring(cut + 1);
            JsonNode node = root.at(pointer);
            JsonNode replacement = switch (this) {
                case REMOVE -> null;
                case NULL -> node.isNull() ? null : NullNode.instance;
                case CHANGE -> changed(node);
                case RETYPE -> retyped(node);
            };
            if (this == REMOVE) {
                if (parent instanceof ObjectNode o) {
                    o.remove(last);
                } else {
                    ((ArrayNode) parent).remove(Integer.parseInt(last));
                }
                return true;
            }
            if (replacement == null) {
                return false;
            }
            if (parent instanceof ObjectNode o) {
                o.set(last, replacement);
            } else {
                ((ArrayNode) parent).set(Integer.parseInt(last), replacement);
            }
            return true;
        }

        static JsonNode changed(JsonNode node) {
            if (node.isTextual()) {
                String t = node.textValue();
                if (t.matches("[0-9a-f]{64}")) {
                    return TextNode.valueOf((t.charAt(0) == 'a' ? "b" : "a") + t.substring(1));
                }
                if (t.matches("\\d{4}-.*Z")) {
                    return TextNode.valueOf(t.replaceFirst("^(\\d{3})\\d", "$19"));
                }
                return TextNode.valueOf(t + "x");
            }
            if (node.isIntegralNumber()) {
                return IntNode.valueOf(node.intValue() + 1);
            }
            if (node.isBoolean()) {
                return BooleanNode.valueOf(!node.booleanValue());
            }
            if (node.isObject()) {
                ObjectNode copy = node.deepCopy();
                copy.put("added", true);
                return copy;
            }
            if (node.isArray()) {
                ArrayNode copy = node.deepCopy();
                if (copy.isEmpty()) {
                    copy.add(1);
                } else {
                    copy.add(copy.get(copy.size() - 1));
                }
                return copy;
            }
            return null;
        }

        static JsonNode retyped(JsonNode node) {
            if (node.isTextual()) {
                return IntNode.valueOf(1);
            }
            if (node.isNumber()) {
                return TextNode.valueOf(node.asText());
            }
            if (node instanceof ContainerNode<?>) {
                return TextNode.valueOf("x");
            }
            return null;
        }
    }
}
