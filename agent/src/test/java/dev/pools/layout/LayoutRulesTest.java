package dev.pools.layout;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every rule of a layout file, with the one line it is refused with (after the agent's
 * {@code pools: } prefix). The agent and {@code check} print exactly this message;
 * {@code AgentStartupIT} proves that wiring on a few of these cases in forked JVMs.
 */
public class LayoutRulesTest {

    public static Stream<Arguments> badFiles() {
        return Stream.of(
                Arguments.of(
                        "a list never closed, said where it opens",
                        "layout: sliced\npools: [{page_size: 1 MiB}\n\n",
                        "bad.yaml:2: YAML syntax: a '[' list that begins on this line is not closed (expected ',' or"
                                + " ']', but the file ends)"),
                Arguments.of(
                        "a mapping never closed",
                        "layout: sliced\npools:\n  - {page_size: 1 MiB\n",
                        "bad.yaml:3: YAML syntax: a '{' mapping that begins on this line is not closed"),
                Arguments.of(
                        "a quote never closed",
                        "layout: sliced\nreport:\n  file: \"r.jfr\n\n",
                        "bad.yaml:3: YAML syntax: a quoted value that begins on this line is not closed (the file ends"
                                + " first)"),
                Arguments.of(
                        "tab indentation",
                        "layout: sliced\npools:\n\t- page_size: 1 MiB\n",
                        "bad.yaml:3: YAML syntax: found character '\\t(TAB)'"),
                Arguments.of(
                        "unknown key",
                        "layout: sub-slices\nreleases: gc\n",
                        "bad.yaml:2: unknown key 'releases' (did you mean 'release'?)"),
                Arguments.of(
                        "misspelled top key",
                        "layuot: sliced\n",
                        "bad.yaml:1: unknown key 'layuot' (did you mean 'layout'?)"),
                Arguments.of(
                        "misspelled pool key",
                        "layout: sliced\npools:\n  - page_sise: 1 MiB\n",
                        "bad.yaml:3: unknown key 'pools[0].page_sise' (did you mean 'page_size'?)"),
                Arguments.of(
                        "unknown nested key",
                        "report:\n  flie: x.jfr\n",
                        "bad.yaml:2: unknown key 'report.flie' (did you mean 'file'?)"),
                Arguments.of(
                        "negative size",
                        "layout: sliced\npools:\n  - page_size: -1 MiB\n",
                        "bad.yaml:3: pools[0].page_size: '-1 MiB' is negative (expected a size of at least 1 byte)"),
                Arguments.of(
                        "overflowing size",
                        "layout: sliced\npools:\n  - page_size: 99999999999999999999999\n",
                        "bad.yaml:3: pools[0].page_size: 99999999999999999999999 is too large (the largest size is 2 GiB)"),
                Arguments.of(
                        "size past a direct buffer",
                        "layout: sliced\npools:\n  - page_size: 3 GiB\n",
                        "bad.yaml:3: pools[0].page_size (3 GiB) is larger than 2147483584 B (a direct buffer holds at most 2 GiB)"),
                Arguments.of(
                        "unknown unit",
                        "layout: sliced\npools:\n  - page_size: 1 TB\n",
                        "bad.yaml:3: pools[0].page_size: unknown unit 'TB' in '1 TB'"),
                Arguments.of(
                        "max_slice above page_size",
                        "layout: sliced\npools:\n  - page_size: 1 MiB\n  - page_size: 1 MiB\n    max_slice: 2 MiB\n",
                        "bad.yaml:5: pools[1].max_slice (2 MiB) is larger than its page_size (1 MiB)"),
                Arguments.of(
                        "pages 0",
                        "layout: sliced\npools:\n  - page_size: 1 MiB\n    pages: 0\n",
                        "bad.yaml:4: pools[0].pages (0) is outside 1..=65535"),
                Arguments.of(
                        "pages 70000",
                        "layout: sliced\npools:\n  - page_size: 1 MiB\n    pages: 70000\n",
                        "bad.yaml:4: pools[0].pages (70000) is outside 1..=65535"),
                Arguments.of(
                        "pages not a number",
                        "layout: sliced\npools:\n  - page_size: 1 MiB\n    pages: many\n",
                        "bad.yaml:4: pools[0].pages: 'many' is not a whole number"),
                Arguments.of(
                        "pages tagged !!int that is no number",
                        "layout: sliced\npools:\n  - page_size: 1 MiB\n    pages: !!int abc\n",
                        "bad.yaml:4: pools[0].pages: 'abc' is not a whole number"),
                Arguments.of(
                        "pages tagged !!int in hexadecimal",
                        "layout: sliced\npools:\n  - page_size: 1 MiB\n    pages: !!int 0x10\n",
                        "bad.yaml:4: pools[0].pages: '0x10' is not a whole number"),
                Arguments.of(
                        "a flag tagged !!bool that is neither true nor false",
                        "poison_on_free: !!bool yes\n",
                        "bad.yaml:1: poison_on_free: 'yes' is not true or false"),
                Arguments.of(
                        "trace and recording in one file",
                        "report:\n  file: out-%p\n  trace: out-%p\n",
                        "bad.yaml:3: report.trace names the same file as report.file (out-%p): the trace and the"
                                + " recording would overwrite each other"),
                Arguments.of(
                        "the trace where the recording is set aside",
                        "report:\n  file: out.jfr\n  max_size: 64 KiB\n  trace: out.jfr.1\n",
                        "bad.yaml:4: report.trace names the file report.file is set aside as at report.max_size"
                                + " (out.jfr.1), which would replace the trace"),
                Arguments.of(
                        "a cap with its number forgotten",
                        "layout: sliced\npools:\n  - page_size: 1 MiB\n    pages:\n",
                        "bad.yaml:4: pools[0].pages has no value (leave the key out for no cap)"),
                Arguments.of(
                        "a value with a line break",
                        "poison_on_free: |\n  true\n",
                        "bad.yaml:1: poison_on_free: 'true\\n' is not true or false"),
                Arguments.of(
                        "the recording over the layout file",
                        "report:\n  file: ./bad.yaml\n",
                        "bad.yaml:2: report.file names this layout file itself (./bad.yaml), which it would overwrite"),
                Arguments.of(
                        "a control character",
                        "layout: sliced\npools:\n  - page_size: 1 MiB\n  \u0007\n",
                        "bad.yaml:4: YAML syntax: special characters are not allowed (U+0007)"),
                Arguments.of(
                        "a file name that begins with %",
                        "report:\n  file: %p.jfr\n",
                        "bad.yaml:2: YAML syntax: a value cannot begin with % unless quoted (write \"%p.jfr\", with"
                                + " the quotes)"),
                Arguments.of(
                        "a size of 500 digits",
                        "layout: sliced\npools:\n  - page_size: " + "9".repeat(500) + "\n",
                        "bad.yaml:3: pools[0].page_size: " + "9".repeat(40) + "... (500 characters) is too large (the"
                                + " largest size is 2 GiB)"),
                Arguments.of(
                        "zero size",
                        "layout: sliced\npools:\n  - page_size: 0\n",
                        "bad.yaml:3: pools[0].page_size is 0 (a size must be at least 1 byte)"),
                Arguments.of(
                        "empty pool list",
                        "layout: sliced\npools: []\n",
                        "bad.yaml:2: pools is empty (a sliced layout needs at least one pool)"),
                Arguments.of(
                        "sliced without pools",
                        "layout: sliced\n",
                        "bad.yaml:1: pools is missing (layout: sliced needs a list of pools)"),
                Arguments.of(
                        "pools under a preset",
                        "layout: sub-slices\npools:\n  - page_size: 1 MiB\n",
                        "bad.yaml:2: pools is only for layout: sliced (this layout is sub-slices)"),
                Arguments.of(
                        "max_page_size under sliced",
                        "layout: sliced\npools:\n  - page_size: 1 MiB\nmax_page_size: 1 GiB\n",
                        "bad.yaml:4: max_page_size is only for the presets host, sub-slices and exclusive-pages (this layout is sliced)"),
                Arguments.of(
                        "max_page_size too small",
                        "layout: exclusive-pages\nmax_page_size: 512 KiB\n",
                        "bad.yaml:2: max_page_size (512 KiB) is outside 1 MiB..2147483584 B"),
                Arguments.of(
                        "unknown layout",
                        "layout: slice\n",
                        "bad.yaml:1: unknown value 'slice' for layout (did you mean 'sliced'?)"),
                Arguments.of(
                        "unknown release",
                        "release: gcc\n",
                        "bad.yaml:1: unknown value 'gcc' for release (did you mean 'gc'?); expected gc, close"),
                Arguments.of(
                        "unknown on_exhausted",
                        "on_exhausted: panic\n",
                        "bad.yaml:1: unknown value 'panic' for on_exhausted; expected fallback, fail"),
                Arguments.of(
                        "not a boolean",
                        "poison_on_free: maybe\n",
                        "bad.yaml:1: poison_on_free: 'maybe' is not true or false"),
                Arguments.of(
                        "bad duration",
                        "report:\n  period: 1 hour\n",
                        "bad.yaml:2: report.period: unknown unit 'hour' in '1 hour' (expected ms, s or min)"),
                Arguments.of(
                        "report period longer than a day",
                        "report:\n  period: 99999999999 min\n",
                        "bad.yaml:2: report.period: 99999999999 min is longer than a day, the longest (0 records only"
                                + " at the end)"),
                Arguments.of(
                        "report file size below the least",
                        "report:\n  max_size: 16 KiB\n",
                        "bad.yaml:2: report.max_size: 16 KiB is less than 64 KiB, the least a file needs (or none:"
                                + " the file grows for as long as the JVM runs)"),
                Arguments.of(
                        "report file size not a size",
                        "report:\n  max_size: big\n",
                        "bad.yaml:2: report.max_size: 'big' is not a size"),
                Arguments.of(
                        "bad report file",
                        "report:\n  file: out-%x.jfr\n",
                        "bad.yaml:2: report.file: 'out-%x.jfr' has an unknown placeholder"),
                Arguments.of(
                        "jdk package",
                        "intercept:\n  packages: [java.nio]\n",
                        "bad.yaml:2: intercept.packages: 'java.nio' cannot be intercepted"),
                Arguments.of(
                        "duplicate key",
                        "layout: sliced\nlayout: direct\n",
                        "bad.yaml:2: duplicate key 'layout' (first at line 1)"),
                Arguments.of(
                        "top level not a mapping", "- layout: sliced\n", "bad.yaml:1: the top level is not a mapping"),
                Arguments.of(
                        "empty file",
                        "\n\n",
                        "bad.yaml: the file is empty (expected a layout, e.g. 'layout: sub-slices')"),
                Arguments.of("comments only", "# nothing here\n", "bad.yaml: the file is empty"),
                Arguments.of("missing file", null, "bad.yaml: no such file"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFiles")
    void each_broken_rule_is_refused_with_its_file_line_and_rule(String what, String text, String expected) {
        LayoutException e = assertThrows(LayoutException.class, () -> {
            if (text == null) {
                LayoutFile.read(Path.of("bad.yaml"), Layouts.GIB); // no such file in the working directory
            } else {
                LayoutFile.parse("bad.yaml", text, Layouts.GIB);
            }
        });
        assertTrue(e.getMessage().startsWith(expected), "expected '" + expected + "...' but got: " + e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }
}
