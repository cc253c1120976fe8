package dev.pools.layout;

import dev.pools.layout.YamlNode.Entry;
import dev.pools.layout.YamlNode.Mapping;
import dev.pools.layout.YamlNode.Scalar;
import dev.pools.layout.YamlNode.Sequence;
import dev.pools.layout.YamlNode.Type;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Parse;
import org.snakeyaml.engine.v2.common.Anchor;
import org.snakeyaml.engine.v2.events.AliasEvent;
import org.snakeyaml.engine.v2.events.CollectionStartEvent;
import org.snakeyaml.engine.v2.events.DocumentStartEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.MappingEndEvent;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.events.SequenceEndEvent;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.ReaderException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.resolver.ScalarResolver;

/**
 * The YAML side of a layout file: text to {@link YamlNode}s that keep their lines, built from
 * SnakeYAML Engine's parser events. {@link LayoutFile} checks the nodes against the schema.
 */
final class YamlNodes {

    private static final int MAX_COLLECTION_ALIASES = 10;

    private YamlNodes() {}

    /** The line (from 1) of the code point at {@code position} in {@code text}. */
    static int lineAt(String text, int position) {
        int end;
        try {
            end = text.offsetByCodePoints(0, Math.max(0, position));
        } catch (IndexOutOfBoundsException e) {
            end = text.length();
        }
        int line = 1;
        for (int i = 0; i < end; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    /** The document's root node as SnakeYAML Engine reads it. */
    static YamlNode composeInFull(String source, String text) throws LayoutException {
        if (text.isBlank()) {
            throw new LayoutException(source, 0, "the file is empty (expected a layout, e.g. 'layout: sub-slices')");
        }
        LoadSettings settings = LoadSettings.builder()
                .setLabel(source)
                .setCodePointLimit(1 << 20)
                .build();
        YamlNode root;
        try {
            root = build(
                    source,
                    new Parse(settings).parseString(text).iterator(),
                    settings.getSchema().getScalarResolver());
        } catch (MarkedYamlEngineException e) {
            int line = line(e.getProblemMark());
            String problem = e.getProblem() == null ? e.getMessage() : e.getProblem();
            if (atEnd(problem) && e.getContextMark().isPresent() && e.getContext() != null) {
                // A bracket or quote never closed: said where it opened, not past the file's last line.
                line = line(e.getContextMark());
                problem = opened(e.getContext()) + " that begins on this line is not closed (" + theEnd(problem) + ")";
            }
            if (problem.contains("'%' that cannot start any token")) {
                // file: %p.jfr, which YAML reads as a directive.
                problem = "a value cannot begin with % unless quoted (write \"%p.jfr\", with the quotes)";
            }
            throw new LayoutException(source, line, "YAML syntax: " + oneLine(problem));
        } catch (ReaderException e) {
            // A character YAML does not allow (NUL, BEL): said at its line, which the exception does not mark.
            throw new LayoutException(
                    source,
                    lineAt(text, e.getPosition()),
                    "YAML syntax: special characters are not allowed (U+" + String.format("%04X", e.getCodePoint())
                            + ")");
        } catch (YamlEngineException e) {
            throw new LayoutException(source, 0, "YAML syntax: " + oneLine(e.getMessage()));
        }
        if (root == null || YamlNode.isNull(root)) {
            throw new LayoutException(source, 0, "the file is empty (expected a layout, e.g. 'layout: sub-slices')");
        }
        return root;
    }

    /** A collection whose end event has not come yet. */
    private static final class Open {
        final CollectionStartEvent start;
        final List<YamlNode> items = new ArrayList<>();

        Open(CollectionStartEvent start) {
            this.start = start;
        }
    }

    /**
     * The document's nodes, built from the parser's events as SnakeYAML's composer builds them
     * (implicit tags resolved by the schema, anchors and aliases), but without the composer: its
     * first use cost {@code premain} about 9 ms. Returns null for a stream without a document.
     */
    private static YamlNode build(String source, Iterator<Event> events, ScalarResolver resolver)
            throws LayoutException {
        Map<Anchor, YamlNode> anchors = new HashMap<>();
        ArrayDeque<Open> open = new ArrayDeque<>();
        YamlNode root = null;
        int documents = 0;
        int collectionAliases = 0;
        while (events.hasNext()) {
            Event e = events.next();
            YamlNode done;
            Optional<Anchor> anchor = Optional.empty();
            if (e instanceof DocumentStartEvent) {
                if (++documents > 1) {
                    throw new LayoutException(
                            source,
                            line(e.getStartMark()),
                            "YAML syntax: a second document ('---'); a layout file holds one");
                }
                continue;
            } else if (e instanceof CollectionStartEvent c) {
                open.push(new Open(c));
                continue;
            } else if (e instanceof ScalarEvent s) {
                Tag tag = explicitTag(s.getTag());
                done = new Scalar(
                        s.getValue(),
                        type(
                                tag == null
                                        ? resolver.resolve(
                                                s.getValue(), s.getImplicit().canOmitTagInPlainScalar())
                                        : tag),
                        line(s.getStartMark()));
                anchor = s.getAnchor();
            } else if (e instanceof AliasEvent a) {
                done = anchors.get(a.getAlias());
                if (done == null) {
                    throw new LayoutException(
                            source, line(e.getStartMark()), "YAML syntax: found undefined alias *" + a.getAlias());
                }
                if (!(done instanceof Scalar) && ++collectionAliases > MAX_COLLECTION_ALIASES) {
                    throw new LayoutException(
                            source,
                            line(e.getStartMark()),
                            "YAML syntax: more than " + MAX_COLLECTION_ALIASES + " aliases to lists or mappings");
                }
            } else if (e instanceof SequenceEndEvent || e instanceof MappingEndEvent) {
                Open o = open.pop();
                int line = line(o.start.getStartMark());
                if (e instanceof SequenceEndEvent) {
                    done = new Sequence(o.items, line);
                } else {
                    List<Entry> entries = new ArrayList<>(o.items.size() / 2);
                    for (int i = 0; i + 1 < o.items.size(); i += 2) {
                        entries.add(new Entry(o.items.get(i), o.items.get(i + 1)));
                    }
                    done = new Mapping(entries, line);
                }
                anchor = o.start.getAnchor();
            } else {
                continue; // stream start and end, document end
            }
            if (anchor.isPresent()) {
                anchors.put(anchor.get(), done);
            }
            if (open.isEmpty()) {
                root = done;
            } else {
                open.peek().items.add(done);
            }
        }
        return root;
    }

    /** The tag written in the file, or null when the schema decides (none, or the non-specific '!'). */
    private static Tag explicitTag(Optional<String> tag) {
        return tag.isEmpty() || tag.get().equals("!") ? null : new Tag(tag.get());
    }

    private static String oneLine(String s) {
        return s.replace("\t", "\\t").replaceAll("\\s*\\n\\s*", " ").trim();
    }

    /** A scalar's tag as the schema's type. */
    private static Type type(Tag tag) {
        if (tag.equals(Tag.STR)) {
            return Type.STR;
        }
        if (tag.equals(Tag.INT)) {
            return Type.INT;
        }
        if (tag.equals(Tag.FLOAT)) {
            return Type.FLOAT;
        }
        if (tag.equals(Tag.BOOL)) {
            return Type.BOOL;
        }
        return tag.equals(Tag.NULL) ? Type.NULL : Type.OTHER;
    }

    /** The 1-based line of a mark, 0 without one (no lambdas: this runs in premain, where the first costs milliseconds). */
    private static boolean atEnd(String problem) {
        return problem.contains("<stream end>") || problem.contains("end of stream");
    }

    /** SnakeYAML's words for the end of the text, as a user reads them. */
    private static String theEnd(String problem) {
        return problem.replace("but got <stream end>", "but the file ends")
                .replace("found unexpected end of stream", "the file ends first");
    }

    /** What SnakeYAML was reading when the text ended, as a user wrote it. */
    private static String opened(String context) {
        if (context.contains("flow sequence")) {
            return "a '[' list";
        }
        if (context.contains("flow mapping")) {
            return "a '{' mapping";
        }
        if (context.contains("quoted scalar")) {
            return "a quoted value";
        }
        return context;
    }

    static int line(Optional<Mark> mark) {
        return mark.isPresent() ? mark.get().getLine() + 1 : 0;
    }
}
