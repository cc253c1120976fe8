package dev.pools.layout;

import dev.pools.layout.YamlNode.Entry;
import dev.pools.layout.YamlNode.Mapping;
import dev.pools.layout.YamlNode.Scalar;
import dev.pools.layout.YamlNode.Sequence;
import dev.pools.layout.YamlNode.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * The plain shape every layout file of this project's documentation and of {@code suggest} has,
 * read without SnakeYAML Engine's parser, whose first use cost {@code premain} 60 to 90 ms: block
 * mappings and block lists, lists of plain scalars in brackets, plain scalars, comments.
 *
 * <p>{@link #read} returns the nodes SnakeYAML would give the schema (the same kinds, values, types
 * of its JSON schema, and lines), or null for any text outside that shape, which
 * {@link YamlNodes} then reads in full. It only ever accepts text that SnakeYAML reads to the same
 * nodes; anything it is not sure of (quotes, anchors, tags, flow mappings, multi-line scalars,
 * tabs, non-ASCII characters, a second document, an unusual indentation) is left to SnakeYAML,
 * which also words every syntax error. {@code PlainYamlTest} compares both on generated and
 * mutated files.
 */
final class PlainYaml {

    /** Characters that, first in a scalar, start YAML syntax this reader leaves to SnakeYAML. */
    private static final String UNSURE_FIRST = "'\"&*!|>%@`{}[],?$#:";

    /** Characters it leaves to SnakeYAML anywhere in a scalar (indicators in brackets, quotes, escapes). */
    private static final String UNSURE = "'\"`{}[],:\\";

    private final List<Line> lines = new ArrayList<>();
    private int next;

    /** A line that holds more than a comment: its 0-based number, where its text starts, the text. */
    private record Line(int number, int indent, String text) {}

    /** Thrown inside the reader for text outside the plain shape: the caller gets null. */
    private static final class NotPlain extends Exception {
        NotPlain() {
            super(null, null, false, false);
        }
    }

    private PlainYaml() {}

    /** The document's root, a mapping; null when the text is not of the plain shape. */
    static YamlNode read(String text) {
        PlainYaml y = new PlainYaml();
        try {
            y.split(text);
            if (y.lines.isEmpty() || y.lines.get(0).indent != 0 || isItem(y.lines.get(0).text)) {
                return null;
            }
            YamlNode root = y.mapping(0, y.take());
            return y.next == y.lines.size() ? root : null;
        } catch (NotPlain e) {
            return null;
        }
    }

    private void split(String text) throws NotPlain {
        if (text.length() > 1 << 20) {
            throw new NotPlain();
        }
        int number = 0;
        int start = 0;
        while (start <= text.length()) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = text.length();
            }
            String content = uncommented(text, start, end);
            int indent = 0;
            while (indent < content.length() && content.charAt(indent) == ' ') {
                indent++;
            }
            if (indent < content.length()) {
                String t = content.substring(indent);
                if (t.startsWith("---") || t.startsWith("...")) {
                    throw new NotPlain();
                }
                lines.add(new Line(number, indent, t));
            }
            number++;
            start = end + 1;
        }
    }

    /** The line without its comment and trailing spaces; refuses characters this reader leaves to SnakeYAML. */
    private static String uncommented(String text, int start, int end) throws NotPlain {
        int stop = end;
        for (int i = start; i < end; i++) {
            char c = text.charAt(i);
            if (c < ' ' || c > '~') {
                throw new NotPlain(); // tabs, carriage returns, a byte order mark, non-ASCII text
            }
            if (c == '#') {
                if (i > start && text.charAt(i - 1) != ' ') {
                    throw new NotPlain();
                }
                stop = i;
                break;
            }
        }
        while (stop > start && text.charAt(stop - 1) == ' ') {
            stop--;
        }
        return text.substring(start, stop);
    }

    private Line peek() {
        return next < lines.size() ? lines.get(next) : null;
    }

    private Line take() {
        return lines.get(next++);
    }

    private static boolean isItem(String text) {
        return text.equals("-") || text.startsWith("- ");
    }

    /** A block mapping whose keys start at {@code indent}; {@code first} is its first entry, already taken. */
    private YamlNode mapping(int indent, Line first) throws NotPlain {
        List<Entry> entries = new ArrayList<>();
        Line line = first;
        while (true) {
            String text = line.text;
            int colon = keyEnd(text);
            Scalar key = scalar(text.substring(0, colon), line.number);
            String rest = text.substring(colon + 1).stripLeading();
            YamlNode value;
            if (!rest.isEmpty()) {
                value = value(rest, line.number);
                Line after = peek();
                if (after != null && after.indent > indent) {
                    throw new NotPlain(); // a multi-line scalar, or an error
                }
            } else {
                value = blockValue(indent, line);
            }
            entries.add(new Entry(key, value));
            Line after = peek();
            if (after == null || after.indent < indent) {
                break;
            }
            if (after.indent > indent || isItem(after.text)) {
                throw new NotPlain();
            }
            line = take();
        }
        return new Mapping(entries, first.number + 1);
    }

    /** What follows {@code key:} at the end of a line: a nested block, a list at the key's own indent, or nothing. */
    private YamlNode blockValue(int indent, Line keyLine) throws NotPlain {
        Line after = peek();
        if (after != null && after.indent > indent) {
            take();
            return isItem(after.text) ? sequence(after.indent, after) : mapping(after.indent, after);
        }
        if (after != null && after.indent == indent && isItem(after.text)) {
            take();
            return sequence(indent, after);
        }
        // SnakeYAML marks an empty value where the next token starts; refused rather than guessed.
        throw new NotPlain();
    }

    /** A block list whose dashes are at {@code indent}; {@code first} is its first item, already taken. */
    private YamlNode sequence(int indent, Line first) throws NotPlain {
        List<YamlNode> items = new ArrayList<>();
        Line line = first;
        while (true) {
            if (line.text.equals("-")) {
                throw new NotPlain();
            }
            String rest = line.text.substring(1).stripLeading();
            int column = indent + line.text.length() - rest.length();
            if (isItem(rest)) {
                throw new NotPlain(); // a list in a list on one line
            }
            if (hasKey(rest)) {
                items.add(mapping(column, new Line(line.number, column, rest)));
            } else {
                items.add(value(rest, line.number));
                Line after = peek();
                if (after != null && after.indent > indent) {
                    throw new NotPlain();
                }
            }
            Line after = peek();
            if (after == null || after.indent < indent || after.indent == indent && !isItem(after.text)) {
                break; // the caller checks what follows: the next key after a list at its key's indent, or an error
            }
            if (after.indent > indent) {
                throw new NotPlain();
            }
            line = take();
        }
        return new Sequence(items, first.number + 1);
    }

    /** Whether the text starts with {@code key:} followed by a space or the end of the line. */
    private static boolean hasKey(String text) {
        int colon = text.indexOf(':');
        return colon > 0 && (colon == text.length() - 1 || text.charAt(colon + 1) == ' ') && isKey(text, colon);
    }

    private static int keyEnd(String text) throws NotPlain {
        if (!hasKey(text)) {
            throw new NotPlain();
        }
        return text.indexOf(':');
    }

    /** Keys are words: letters, digits, '_', '.', '-', not starting with '-' or '.'. */
    private static boolean isKey(String text, int end) {
        for (int i = 0; i < end; i++) {
            char c = text.charAt(i);
            boolean word = Character.isLetterOrDigit(c) || c == '_' || ((c == '-' || c == '.') && i > 0);
            if (!word) {
                return false;
            }
        }
        return true;
    }

    /** A value on the key's or the dash's line: a bracketed list of plain scalars, or a plain scalar. */
    private YamlNode value(String text, int number) throws NotPlain {
        if (text.charAt(0) != '[') {
            return scalar(text, number);
        }
        if (!text.endsWith("]")) {
            throw new NotPlain();
        }
        List<YamlNode> items = new ArrayList<>();
        String inside = text.substring(1, text.length() - 1);
        if (!inside.isBlank()) {
            int start = 0;
            while (true) {
                int comma = inside.indexOf(',', start);
                int end = comma < 0 ? inside.length() : comma;
                String item = inside.substring(start, end);
                String trimmed = item.strip();
                if (trimmed.isEmpty()) {
                    throw new NotPlain();
                }
                items.add(scalar(trimmed, number));
                if (comma < 0) {
                    break;
                }
                start = comma + 1;
            }
        }
        return new Sequence(items, number + 1);
    }

    /** A plain scalar with its implicit type; anything a plain scalar might not read back as itself is refused. */
    private static Scalar scalar(String text, int number) throws NotPlain {
        if (text.isEmpty()
                || text.charAt(0) == '-' && (text.length() == 1 || text.charAt(1) == ' ')
                || UNSURE_FIRST.indexOf(text.charAt(0)) >= 0) {
            throw new NotPlain();
        }
        for (int i = 0; i < text.length(); i++) {
            if (UNSURE.indexOf(text.charAt(i)) >= 0) {
                throw new NotPlain();
            }
        }
        return new Scalar(text, type(text), number + 1);
    }

    /** The implicit type SnakeYAML Engine's JSON schema gives a plain scalar (none starts with '$' here: no environment tag). */
    static Type type(String v) {
        if (v.equals("true") || v.equals("false")) {
            return Type.BOOL;
        }
        if (v.equals("null")) {
            return Type.NULL;
        }
        int i = v.startsWith("-") ? 1 : 0;
        int digits = digits(v, i);
        if (digits > 0 && (v.charAt(i) != '0' || digits == 1)) {
            int at = i + digits;
            if (at == v.length()) {
                return Type.INT;
            }
            if (v.charAt(at) == '.') {
                at += 1 + digits(v, at + 1);
            }
            if (at < v.length() && (v.charAt(at) == 'e' || v.charAt(at) == 'E')) {
                int sign = at + 1 < v.length() && (v.charAt(at + 1) == '-' || v.charAt(at + 1) == '+') ? 1 : 0;
                int exponent = digits(v, at + 1 + sign);
                at = exponent == 0 ? -1 : at + 1 + sign + exponent;
            }
            if (at == v.length()) {
                return Type.FLOAT;
            }
        }
        if (v.equals(".nan") || v.equals(".inf") || v.equals("-.inf")) {
            return Type.FLOAT;
        }
        return Type.STR;
    }

    private static int digits(String v, int from) {
        int i = from;
        while (i < v.length() && v.charAt(i) >= '0' && v.charAt(i) <= '9') {
            i++;
        }
        return i - from;
    }
}
