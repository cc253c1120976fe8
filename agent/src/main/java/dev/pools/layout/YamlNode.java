package dev.pools.layout;

import java.util.List;

/**
 * A node of a layout file as the schema ({@link LayoutFile}) reads it: a scalar with its text and
 * the type YAML gives it, a list, or a mapping, each with its 1-based line (0 when unknown).
 * {@link PlainYaml} builds them for the plain shape, {@link YamlNodes} from SnakeYAML Engine's
 * events for the rest. The schema does not see SnakeYAML's own nodes: loading and initialising
 * them (its {@code Tag} compiles a regular expression) was the largest single part of reading a
 * plain file in {@code premain}.
 */
sealed interface YamlNode {

    /** The 1-based line where the node starts, 0 when unknown. */
    int line();

    /**
     * A scalar's type: the tag written in the file, or the one YAML's JSON schema (SnakeYAML
     * Engine's default) resolves for a plain scalar; {@code OTHER} for any tag the schema does not know.
     */
    enum Type {
        STR,
        INT,
        FLOAT,
        BOOL,
        NULL,
        OTHER
    }

    record Scalar(String value, Type type, int line) implements YamlNode {}

    record Sequence(List<YamlNode> items, int line) implements YamlNode {}

    record Mapping(List<Entry> entries, int line) implements YamlNode {}

    /** One {@code key: value} of a mapping. */
    record Entry(YamlNode key, YamlNode value) {}

    /** An explicit {@code null} or {@code ~}, or an empty value. */
    static boolean isNull(YamlNode node) {
        return node instanceof Scalar s && s.type() == Type.NULL;
    }
}
