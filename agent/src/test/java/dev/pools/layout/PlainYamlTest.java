package dev.pools.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The plain reader accepts only text that SnakeYAML Engine reads to the same nodes (kinds, values,
 * types, lines, as the schema sees them), and it does accept the files this project writes and documents.
 */
class PlainYamlTest {

    /** The plain reader's nodes, checked against SnakeYAML's; null when it left the text to SnakeYAML. */
    private static YamlNode agreed(String text) {
        YamlNode plain = PlainYaml.read(text);
        if (plain == null) {
            return null;
        }
        YamlNode full;
        try {
            full = YamlNodes.composeInFull("f.yaml", text);
        } catch (LayoutException e) {
            return fail("the plain reader accepted what SnakeYAML refuses (" + e.getMessage() + "):\n" + text);
        }
        // Records: equal when their kinds, values, types, lines and children are.
        assertEquals(full, plain, "\n" + text);
        return plain;
    }

    @Test
    void the_projects_layout_files_and_what_suggest_prints_are_read_without_snakeyaml() throws Exception {
        List<Path> files;
        try (Stream<Path> s = Stream.of(Path.of("../sample-app/layouts"), Path.of("../spark-app/layouts"))
                .flatMap(PlainYamlTest::list)) {
            files = s.filter(p -> p.toString().endsWith(".yaml")).toList();
        }
        assertTrue(files.size() >= 3, "layout files found: " + files);
        for (Path f : files) {
            assertNotNull(agreed(Files.readString(f)), "left to SnakeYAML: " + f);
        }
        for (Path f : files) {
            String printed = LayoutPrinter.print(LayoutFile.read(f, 1L << 30), 1L << 30);
            assertNotNull(agreed(printed), "left to SnakeYAML:\n" + printed);
        }
    }

    private static Stream<Path> list(Path dir) {
        try {
            return Files.list(dir).toList().stream();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void implicit_tags_are_those_of_the_json_schema() {
        String[] values = {
            "0", "-0", "12", "-12", "012", "00", "1_000", "1.", "1.5", "-0.25", "1e5", "1E-5", "1e", "1.5e+3", ".5",
            ".inf", "-.inf", ".nan", "-.nan", "+1", "0x1F", "true", "false", "True", "null", "Null", "~", "64 KiB",
            "500 ms", "none", "1-2", "1.2.3"
        };
        for (String v : values) {
            assertNotNull(agreed("key: " + v + "\n"), v);
            assertNotNull(agreed("key: [" + v + ", a]\n"), v);
        }
    }

    @Test
    void what_it_is_not_sure_of_goes_to_snakeyaml() {
        String[] left = {
            "key: 'quoted'\n",
            "key: \"quoted\"\n",
            "key: &a x\nother: *a\n",
            "key: !!str 1\n",
            "key: {a: 1}\n",
            "key: |\n  text\n",
            "key: a\n  continued\n",
            "key:\n",
            "---\nkey: a\n",
            "key: a\n...\n",
            "key:\ta\n",
            "key: a\r\nother: b\r\n",
            "\uFEFFkey: a\n",
            "key: caf\u00e9\n",
            "key: a#b\n",
            "key: [a, [b]]\n",
            "key: [a, b,]\n",
            "key: [a,\n  b]\n",
            "- a\n",
            "key: a: b\n",
            "key:a\n",
            "  key: a\n",
            "? key\n: a\n",
            "key: ${HOME}\n",
            "key: -\n",
            "key:\n  - - a\n",
            "key: C:/x\n",
            "# only a comment\n"
        };
        for (String text : left) {
            assertNull(PlainYaml.read(text), text);
        }
    }

    @Test
    void generated_layout_files_and_their_mutations_agree_with_snakeyaml() {
        Random random = new Random(14);
        int accepted = 0;
        int mutants = 0;
        int mutantsAccepted = 0;
        for (int i = 0; i < 3000; i++) {
            String text = generate(random);
            assertNotNull(agreed(text), "a plain file left to SnakeYAML:\n" + text);
            accepted++;
            for (int m = 0; m < 5; m++) {
                mutants++;
                if (agreed(mutate(text, random)) != null) {
                    mutantsAccepted++;
                }
            }
        }
        assertEquals(3000, accepted);
        // Both ways are exercised: some mutants stay plain, others go to SnakeYAML.
        assertTrue(mutantsAccepted > mutants / 20 && mutantsAccepted < mutants, mutantsAccepted + " of " + mutants);
    }

    private static final String[] SCALARS = {
        "sliced",
        "sub-slices",
        "64 KiB",
        "1 MiB",
        "4",
        "0",
        "true",
        "false",
        "gc",
        "close",
        "none",
        "500 ms",
        "run.jfr",
        "ai.djl",
        "1.5",
        "null",
        "-1",
        "fallback",
        "measure-%p.jfr",
        "/tmp/pools-spark/run-%p-%t.jfr",
        "a!b",
        "x@y",
        "a&b",
        "a*b",
        "a?b",
        "a|b",
        "a>b",
        "~",
        "a$b"
    };

    private static String generate(Random r) {
        StringBuilder b = new StringBuilder();
        int indentStep = r.nextBoolean() ? 2 : 4;
        if (r.nextInt(4) == 0) {
            b.append("# a layout\n");
        }
        int keys = 1 + r.nextInt(5);
        for (int k = 0; k < keys; k++) {
            String key = "key_" + k;
            switch (r.nextInt(5)) {
                case 0 ->
                    b.append(key)
                            .append(": ")
                            .append(pick(r))
                            .append(comment(r))
                            .append('\n');
                case 1 ->
                    b.append(key)
                            .append(": [")
                            .append(pick(r))
                            .append(", ")
                            .append(pick(r))
                            .append("]\n");
                case 2 -> {
                    b.append(key).append(":\n");
                    for (int j = 0; j < 1 + r.nextInt(3); j++) {
                        b.append(" ".repeat(indentStep))
                                .append("sub")
                                .append(j)
                                .append(": ")
                                .append(pick(r));
                        b.append(comment(r)).append('\n');
                    }
                }
                case 3 -> {
                    b.append(key).append(":\n");
                    String dash = r.nextBoolean() ? " ".repeat(indentStep) : "";
                    for (int j = 0; j < 1 + r.nextInt(3); j++) {
                        b.append(dash).append("- page_size: ").append(pick(r)).append('\n');
                        if (r.nextBoolean()) {
                            b.append(dash)
                                    .append("  max_slice: ")
                                    .append(pick(r))
                                    .append(comment(r))
                                    .append('\n');
                        }
                    }
                }
                default -> {
                    b.append(key).append(":\n");
                    for (int j = 0; j < 1 + r.nextInt(3); j++) {
                        b.append(" ".repeat(indentStep))
                                .append("- ")
                                .append(pick(r))
                                .append('\n');
                    }
                }
            }
            if (r.nextInt(5) == 0) {
                b.append('\n');
            }
        }
        return b.toString();
    }

    private static String pick(Random r) {
        return SCALARS[r.nextInt(SCALARS.length)];
    }

    private static String comment(Random r) {
        return r.nextInt(3) == 0 ? "   # note" : "";
    }

    private static final String[] INSERTS = {
        " ", "  ", ":", ": ", "-", "- ", "#", " #", "[", "]", ",", "'", "\t", "\n", "a", "0", "."
    };

    private static String mutate(String text, Random r) {
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        int i = r.nextInt(lines.size());
        String line = lines.get(i);
        switch (r.nextInt(4)) {
            case 0 -> {
                int at = r.nextInt(line.length() + 1);
                lines.set(i, line.substring(0, at) + INSERTS[r.nextInt(INSERTS.length)] + line.substring(at));
            }
            case 1 -> {
                if (!line.isEmpty()) {
                    int at = r.nextInt(line.length());
                    lines.set(i, line.substring(0, at) + line.substring(at + 1));
                }
            }
            case 2 -> lines.add(i, line);
            default -> lines.set(i, " ".repeat(1 + r.nextInt(3)) + line);
        }
        return String.join("\n", lines);
    }
}
