package dev.pools.layout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.api.MemoryPoolLayout;
import dev.pools.api.SlicedPool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The YAML side of a layout file: what SnakeYAML's composer would accept is read alike, and the rest refused with its line. */
class LayoutFileTest {

    private static final long MIB = 1 << 20;

    private static PoolsConfig parse(String text) throws LayoutException {
        return LayoutFile.parse("f.yaml", text, 1L << 30);
    }

    /**
     * The README's layout reference and the layout it shows suggest write are layout files as they
     * stand. Before, the reference set max_page_size under layout: sliced, which is refused (a fuzzing
     * review ran it through check).
     */
    @Test
    void the_readmes_layouts_are_valid_files() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String[] parts = readme.split("```yaml\n");
        List<String> blocks = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) {
            String block = parts[i].substring(0, parts[i].indexOf("```"));
            if (block.contains("\nlayout: ")) {
                blocks.add(block);
            }
        }
        assertEquals(2, blocks.size(), "the reference and suggest's output");
        for (String block : blocks) {
            assertInstanceOf(MemoryPoolLayout.Sliced.class, parse(block).layout(), block);
        }
    }

    private static String refusal(String text) {
        return assertThrows(LayoutException.class, () -> parse(text)).getMessage();
    }

    @Test
    void anchors_aliases_explicit_tags_flow_style_and_a_document_marker_read_as_the_plain_form() throws Exception {
        PoolsConfig plain = parse("""
                layout: sliced
                pools:
                  - {page_size: 1 MiB, max_slice: 64 KiB, pages: 4}
                  - {page_size: 1 MiB, max_slice: 64 KiB, pages: 4}
                  - page_size: 8 MiB
                poison_on_free: true
                """);
        PoolsConfig fancy = parse("""
                ---
                layout: !!str sliced
                pools:
                  - &small {page_size: 1 MiB, max_slice: &slice 64 KiB, pages: !!int 4}
                  - *small
                  - page_size: "8 MiB"
                poison_on_free: !!bool true
                ...
                """);
        assertEquals(plain.layout(), fancy.layout());
        assertEquals(plain.poisonOnFree(), fancy.poisonOnFree());
        assertEquals(
                new MemoryPoolLayout.Sliced(List.of(
                        SlicedPool.of(MIB).withMaxSlice(64 << 10).withPages(4),
                        SlicedPool.of(MIB).withMaxSlice(64 << 10).withPages(4),
                        SlicedPool.of(8 * MIB))),
                fancy.layout());
    }

    @Test
    void report_max_size_has_its_default_a_size_or_none_and_prints_back_as_read() throws Exception {
        assertEquals(
                PoolsConfig.DEFAULT_REPORT_MAX_SIZE, parse("layout: direct\n").reportMaxSize());
        assertEquals(32 * MIB, PoolsConfig.defaults().reportMaxSize());
        PoolsConfig sized = parse("report:\n  max_size: 1 GiB\n");
        assertEquals(1024 * MIB, sized.reportMaxSize());
        PoolsConfig none = parse("report:\n  max_size: none\n");
        assertEquals(0, none.reportMaxSize());
        // The recorded layout's text reads back to the same setting; the default is not printed.
        assertEquals(1024 * MIB, parse(LayoutPrinter.printSettings(sized)).reportMaxSize());
        assertEquals(0, parse(LayoutPrinter.printSettings(none)).reportMaxSize());
        assertFalse(LayoutPrinter.printSettings(PoolsConfig.defaults()).contains("max_size"));
    }

    /**
     * none turns a recording, a trace or the size bound off in any case: before, {@code file: NONE}
     * recorded into a file named NONE in the working directory.
     */
    @Test
    void none_is_none_in_any_case() throws Exception {
        for (String none : new String[] {"none", "None", "NONE"}) {
            PoolsConfig c = parse("report:\n  file: " + none + "\n  trace: " + none + "\n  max_size: " + none + "\n");
            assertNull(c.reportFile(), none);
            assertNull(c.report().trace(), none);
            assertEquals(0, c.reportMaxSize(), none);
        }
    }

    /**
     * The recorded layout and suggest's output print report.file and report.trace so that they read
     * back as the same names. Before, they were printed as they were: "run #%p.jfr" read back as "run"
     * (the rest a comment), and "%h-%p.jfr" was not YAML at all.
     */
    @Test
    void file_names_print_back_as_the_same_names_quoted_where_yaml_needs_it() throws Exception {
        for (String name : List.of(
                "run #%p.jfr",
                "%h-%p.jfr",
                "a: b.jfr",
                "null",
                "123",
                "it's \"q\" \\ x.jfr",
                "-x.jfr",
                "[x].jfr",
                "*x.jfr",
                "&x.jfr",
                "@x.jfr",
                "dir/run-%p.jfr",
                "pools-%p.jfr")) {
            PoolsConfig c = PoolsConfig.defaults()
                    .withReport(new PoolsConfig.Report(name, PoolsConfig.DEFAULT_REPORT_PERIOD, name + ".trace"));
            String text = LayoutPrinter.printSettings(c);
            PoolsConfig back = parse(text);
            assertEquals(name, back.reportFile(), text);
            assertEquals(name + ".trace", back.report().trace(), text);
        }
        assertTrue(LayoutPrinter.printSettings(PoolsConfig.defaults()).contains("  file: pools-%p.jfr\n"), "plain");
    }

    /** A byte that is not UTF-8 is refused with its line; before, the message named no line. */
    @Test
    void text_that_is_not_utf_8_is_refused_with_its_line(@TempDir Path dir) throws Exception {
        Path latin1 = dir.resolve("latin1.yaml");
        Files.write(
                latin1,
                "layout: sliced\n# caf\u00e9\npools:\n  - page_size: 1 MiB\n".getBytes(StandardCharsets.ISO_8859_1));
        LayoutException e = assertThrows(LayoutException.class, () -> LayoutFile.read(latin1, Layouts.GIB));
        assertEquals(latin1 + ":2: not UTF-8 text (byte 0xe9; save the file as UTF-8)", e.getMessage());
        Files.writeString(latin1, "layout: sliced\n# caf\u00e9\npools:\n  - page_size: 1 MiB\n");
        assertEquals(
                "sliced",
                PoolsConfig.kindOf(LayoutFile.read(latin1, Layouts.GIB).layout()),
                "as UTF-8");
    }

    /**
     * The agent checks the report.file a layout sets on its own machine: a name it cannot write is
     * refused with its line, the name expanded; {@code check} (plain read) takes it, as it may run elsewhere.
     */
    @Test
    void the_agent_refuses_a_report_file_it_cannot_write(@TempDir Path dir) throws Exception {
        Files.createDirectory(dir.resolve("folder"));
        Path file = dir.resolve("ok.jfr");
        Files.writeString(file, "");
        String pid = String.valueOf(ProcessHandle.current().pid());
        List<String[]> cases = List.of(
                new String[] {dir.resolve("folder").toString(), "is a folder"},
                new String[] {"/dev/null", "is not a regular file (a device, a pipe or a socket)"},
                new String[] {dir.resolve("nowhere/r-%p.jfr").toString(), "is in a folder that does not exist ("},
                new String[] {file.resolve("r.jfr").toString(), "is in " + file + ", which is not a folder"});
        Path layout = dir.resolve("l.yaml");
        for (String[] c : cases) {
            Files.writeString(layout, "layout: direct\nreport:\n  period: 2 s\n  file: " + c[0] + "\n");
            LayoutException e =
                    assertThrows(LayoutException.class, () -> LayoutFile.readToRun(layout, () -> Layouts.GIB));
            String expanded = c[0].replace("%p", pid);
            assertTrue(e.getMessage().startsWith(layout + ":4: report.file " + expanded + " " + c[1]), e.getMessage());
            assertTrue(
                    e.getMessage()
                            .endsWith(": this JVM cannot write its recording there (none turns the recording off)"),
                    e.getMessage());
            assertEquals(c[0], LayoutFile.read(layout, Layouts.GIB).reportFile(), "check reads it");
        }
        for (String ok : List.of(file.toString(), dir.resolve("new-%p.jfr").toString(), "none")) {
            Files.writeString(layout, "layout: direct\nreport:\n  file: " + ok + "\n");
            assertEquals(
                    ok.equals("none") ? null : ok,
                    LayoutFile.readToRun(layout, () -> Layouts.GIB).reportFile(),
                    ok);
        }
        assertFalse(Files.exists(dir.resolve("nowhere")), "nothing made");
    }

    /** A layout given through a pipe ({@code -javaagent:pools.jar=<(...)}): JDK 17's readNBytes refused it ("Illegal seek"). */
    @Test
    void a_layout_is_read_from_a_pipe(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("layout.fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor(), "mkfifo");
        Thread writer = new Thread(() -> {
            try {
                Files.writeString(fifo, "layout: sliced\npools:\n  - page_size: 2 MiB\n" + "#".repeat(100_000) + "\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        writer.setDaemon(true); // left waiting only if the read below never opened the pipe, which fails the test
        writer.start();
        PoolsConfig c = LayoutFile.read(fifo, Layouts.GIB);
        assertEquals(
                List.of(new SlicedPool(2 * MIB, OptionalLong.empty(), OptionalLong.empty())),
                ((MemoryPoolLayout.Sliced) c.layout()).pools());
    }

    /** Found by a review: a huge file, or /dev/zero, ended in an OutOfMemoryError before. */
    @Test
    void a_file_larger_than_a_layout_can_be_is_refused_without_reading_it_whole(@TempDir Path dir) throws Exception {
        Path big = dir.resolve("big.yaml");
        Files.writeString(big, "layout: direct\n" + "#".repeat(LayoutFile.MAX_FILE_BYTES) + "\n");
        for (Path p : List.of(big, Path.of("/dev/zero"))) {
            if (!Files.exists(p)) {
                continue;
            }
            LayoutException e = assertThrows(LayoutException.class, () -> LayoutFile.read(p, Layouts.GIB));
            assertEquals(
                    p + ": the file is larger than 1 MiB (a layout is a few lines; is this the right file?)",
                    e.getMessage());
        }
        Files.writeString(big, "layout: direct\n" + "#".repeat(LayoutFile.MAX_FILE_BYTES - 20) + "\n");
        assertEquals(
                "direct", PoolsConfig.kindOf(LayoutFile.read(big, Layouts.GIB).layout()), "1 MiB is read");
    }

    @Test
    void what_a_layout_file_cannot_be_is_refused_with_its_line() {
        assertEquals(
                "f.yaml:3: YAML syntax: found undefined alias *nowhere",
                refusal("layout: sliced\npools:\n  - *nowhere\n"));
        assertEquals(
                "f.yaml:2: YAML syntax: a second document ('---'); a layout file holds one",
                refusal("layout: sub-slices\n---\nlayout: direct\n"));
        assertEquals(
                "f.yaml:2: unknown key '<<'; expected one of layout, pools, max_page_size, intercept, release, on_exhausted,"
                        + " poison_on_free, report",
                refusal("layout: sliced\n<<: {pools: []}\n"),
                "merge keys are not read");
        StringBuilder bomb = new StringBuilder("layout: sliced\npools:\n  - &p {page_size: 1 MiB}\n");
        for (int i = 0; i < 11; i++) {
            bomb.append("  - *p\n");
        }
        assertEquals("f.yaml:14: YAML syntax: more than 10 aliases to lists or mappings", refusal(bomb.toString()));
        assertEquals(
                "f.yaml: the file is empty (expected a layout, e.g. 'layout: sub-slices')",
                refusal("# nothing here\n"));
        assertEquals(refusal("null\n"), refusal("# nothing here\n"));
        assertEquals(refusal("---\n...\n"), refusal("# nothing here\n"));
    }

    @Test
    void intercept_packages_that_are_contain_or_lie_in_the_jdk_or_the_agent_are_refused() {
        for (String[] c : new String[][] {
            {"dev", "contains dev.pools"},
            {"dev.pools", "is dev.pools"},
            {"dev.pools.memory", "is dev.pools"},
            {"java", "is java"},
            {"java.nio", "is java"},
            {"jdk", "is jdk"},
            {"sun", "is sun"},
            {"sun.nio.ch", "is sun"}
        }) {
            assertEquals(
                    "f.yaml:2: intercept.packages: '" + c[0] + "' cannot be intercepted: it " + c[1]
                            + " (JDK and pools classes are left alone)",
                    refusal("intercept:\n  packages: [" + c[0] + "]\n"),
                    c[0]);
        }
    }

    @Test
    void intercept_packages_that_only_share_a_prefix_with_a_protected_one_are_accepted() throws Exception {
        assertEquals(
                List.of("dev.poolside", "javax.tensors", "sunrise"),
                parse("intercept:\n  packages: [dev.poolside, javax.tensors, sunrise]\n")
                        .intercept());
    }
}
