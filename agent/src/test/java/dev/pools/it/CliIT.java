package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pools.it.apps.FallbacksBetweenBatches;
import dev.pools.it.apps.ReportsWithoutLayout;
import dev.pools.it.apps.SeededWorkload;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The offline CLI on real recordings: report, suggest over many runs, and every bad input it must refuse. */
class CliIT {

    @TempDir
    static Path dir;

    static final String GROWABLE = """
            layout: sliced
            pools:
              - page_size: 256 KiB
                max_slice: 16 KiB
              - page_size: 2 MiB
              - page_size: 64 MiB
            intercept:
              packages: [it.host]
            report:
              file: seed-%s.jfr
              period: 100 ms
            """;

    static final int RUNS = 8;

    @BeforeAll
    static void recordEightRuns() throws Exception {
        List<Thread> jvms = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (int seed = 0; seed < RUNS; seed++) {
            String s = String.valueOf(seed);
            Files.writeString(dir.resolve("layout-" + s + ".yaml"), GROWABLE.formatted(s));
            Thread t = new Thread(() -> {
                try {
                    Forked.Result r = Forked.app(
                            dir, List.of(Forked.agent(Path.of("layout-" + s + ".yaml"))), SeededWorkload.class, s);
                    if (r.exit() != 0) {
                        failures.add(new AssertionError(r.toString()));
                    }
                } catch (Exception e) {
                    failures.add(e);
                }
            });
            jvms.add(t);
            t.start();
            if (jvms.size() % 2 == 0) {
                for (Thread j : jvms) {
                    j.join();
                }
            }
        }
        for (Thread j : jvms) {
            j.join();
        }
        assertEquals(List.of(), failures);
    }

    private static Path recording(int seed) {
        return dir.resolve("seed-" + seed + ".jfr");
    }

    /** pagesPeak per pool, from report --json of one recording. */
    static long[] peaks(Path file) throws Exception {
        Forked.Result r = Forked.cli(dir, "report", "--json", file.toString());
        assertEquals(0, r.exit(), r.toString());
        Matcher m = Pattern.compile("\"pagesPeak\": (\\d+)").matcher(r.out());
        List<Long> out = new ArrayList<>();
        while (m.find()) {
            out.add(Long.parseLong(m.group(1)));
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * {@code suggest --fit} replays the traces on real pages: in a JVM whose direct memory limit is
     * below what they held at once, every replay is refused, and that is bad input, said with the
     * limit to give. Before, the layout of no replay was written, "8.0 EiB at its peak", exit 0.
     */
    @Test
    void suggest_fit_refuses_when_no_replay_fits_under_the_direct_memory_limit() throws Exception {
        Files.writeString(dir.resolve("sixteen.txt"), "a 1 16777216 it.host.Tensors#allocate\n");
        Forked.Result r = Forked.run(
                dir,
                List.of(
                        Forked.java(),
                        "-XX:MaxDirectMemorySize=8m",
                        "-jar",
                        Forked.JAR.toString(),
                        "suggest",
                        "seed-0.jfr",
                        "--fit",
                        "sixteen.txt"));
        assertEquals(2, r.exit(), r.toString());
        assertEquals(
                List.of("pools: no layout could be replayed: this JVM's direct memory limit (8 MiB) is below what"
                        + " the traces held at once (16 MiB) with the pages around it; run suggest with a larger one,"
                        + " e.g. java -XX:MaxDirectMemorySize=68m -jar pools.jar suggest ..."),
                r.errLines());
        assertTrue(r.out().isEmpty(), r.out());
    }

    /**
     * Standard output that cannot be written (a full disk; here {@code /dev/full}) is bad input: exit
     * status 2 and one line, not 0 with a layout cut short.
     */
    @Test
    void suggest_to_a_standard_output_that_cannot_be_written_exits_2() throws Exception {
        Path err = dir.resolve("full.err");
        Process p = new ProcessBuilder(Forked.java(), "-jar", Forked.JAR.toString(), "suggest", "seed-0.jfr")
                .directory(dir.toFile())
                .redirectOutput(new File("/dev/full"))
                .redirectError(err.toFile())
                .start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS));
        assertEquals(2, p.exitValue(), Files.readString(err));
        assertEquals(
                "pools: cannot write standard output (a full disk, a file size limit, a closed pipe): what it"
                        + " received is cut short\n",
                Files.readString(err));
    }

    @Test
    void report_prints_each_pool_and_the_usage_at_the_end() throws Exception {
        Forked.Result r = Forked.cli(dir, "report", recording(3).toString());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("layout sliced (from file)"), r.out());
        assertTrue(r.out().matches("(?s).*\\n\\s+0\\s+sliced\\s+256 KiB\\s+16 KiB\\s+none.*"), r.out());
        assertTrue(r.out().contains("it.host.Tensors#allocate"), r.out());
        assertTrue(
                r.out().contains("usage at the end:  50 allocations"),
                "seed 3 holds 50 buffers at the end: " + r.out());
        Forked.Result json = Forked.cli(
                dir, "report", "--json", recording(3).toString(), recording(4).toString());
        assertEquals(0, json.exit(), json.toString());
        assertEquals(2, json.out().split("\"recoveredFrom\":").length - 1, "one object per recording");
        assertTrue(json.out().contains("\"fleet\":"), "and the fleet of both: " + json.out());
        assertTrue(json.out().contains("\"numberAllocs\": 50"), json.out());
    }

    @Test
    void suggest_over_eight_recordings_caps_each_pool_at_its_largest_peak() throws Exception {
        long[] max = new long[3];
        boolean differ = false;
        long[] firstPeaks = peaks(recording(0));
        for (int seed = 0; seed < RUNS; seed++) {
            long[] p = peaks(recording(seed));
            for (int i = 0; i < 3; i++) {
                max[i] = Math.max(max[i], p[i]);
                differ |= p[i] != firstPeaks[i];
            }
        }
        assertTrue(differ, "the eight runs peak differently");
        List<String> args = new ArrayList<>(List.of("suggest", "-o", "capped.yaml"));
        for (int seed = 0; seed < RUNS; seed++) {
            args.add(recording(seed).toString());
        }
        Forked.Result r = Forked.cli(dir, args.toArray(String[]::new));
        assertEquals(0, r.exit(), r.toString());
        String capped = Files.readString(dir.resolve("capped.yaml"));
        Matcher m = Pattern.compile("\\n    pages: (\\d+)  # peak (\\d+)").matcher(capped);
        List<Long> pages = new ArrayList<>();
        while (m.find()) {
            pages.add(Long.parseLong(m.group(1)));
            assertEquals(
                    Math.max(1, Long.parseLong(m.group(2))),
                    Long.parseLong(m.group(1)),
                    "no headroom asked for; at least one page");
        }
        assertEquals(List.of(max[0], max[1], Math.max(1, max[2])), pages, capped);
        assertTrue(capped.contains("# pool 2 was never used in the recordings"), capped);

        Forked.Result withHeadroom =
                Forked.cli(dir, "suggest", "--headroom", "50%", recording(7).toString());
        assertEquals(0, withHeadroom.exit());
        long[] p7 = peaks(recording(7));
        assertTrue(
                withHeadroom.out().contains("pages: " + (long) Math.ceil(p7[1] * 1.5) + "  # peak " + p7[1]),
                withHeadroom.out());
    }

    /**
     * Fallbacks held and dropped between two batches: the recording's samples of the JDK's direct memory
     * missed them, so suggest gave a direct memory limit of 2 MiB for 1 MiB of pages and 8 MB of
     * fallbacks, under which the same run was refused 7 of its 9 requests. The agent now keeps the most
     * direct memory outside the pools right after each fallback. The site's peak live is its pool
     * allocations' (the report says so), its fallbacks counted apart.
     */
    @Test
    void fallbacks_between_two_batches_count_in_the_direct_memory_limit() throws Exception {
        Path sub = Files.createDirectories(dir.resolve("fallbacks"));
        String layout = """
                layout: sliced
                pools:
                  - page_size: 1 MiB
                    pages: 1
                intercept:
                  packages: [it.host]
                on_exhausted: fallback
                report:
                  file: %s
                  period: 2 s
                """;
        Files.writeString(sub.resolve("measure.yaml"), layout.formatted("measure.jfr"));
        Forked.Result run =
                Forked.app(sub, List.of(Forked.agent(Path.of("measure.yaml"))), FallbacksBetweenBatches.class, "9");
        assertEquals(0, run.exit(), run.toString());
        Forked.Result report = Forked.cli(sub, "report", "measure.jfr");
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("fallbacks:         8 (7.6 MiB)"), report.out());
        assertTrue(
                report.out().matches("(?s).*it\\.host\\.Tensors#allocate +9 +8\\.6 MiB +976\\.6 KiB +8\\n.*"),
                report.out());
        assertTrue(report.out().contains("(right after a fallback, by the JDK's count; "), report.out());
        Forked.Result suggest = Forked.cli(sub, "suggest", "measure.jfr");
        assertEquals(0, suggest.exit(), suggest.toString());
        Matcher limit = Pattern.compile("MaxDirectMemorySize=(\\d+)m").matcher(suggest.out());
        assertTrue(limit.find(), suggest.out());
        assertEquals(9, Integer.parseInt(limit.group(1)), "1 MiB of pages and 8 MB of fallbacks: " + suggest.out());
        Files.writeString(sub.resolve("rerun.yaml"), layout.formatted("rerun.jfr"));
        Forked.Result rerun = Forked.app(
                sub,
                List.of("-XX:MaxDirectMemorySize=" + limit.group(1) + "m", Forked.agent(Path.of("rerun.yaml"))),
                FallbacksBetweenBatches.class,
                "9");
        assertEquals(0, rerun.exit(), "the same run under the suggested limit: " + rerun);
    }

    @Test
    void the_suggested_layout_runs_the_same_workload_with_no_refusal() throws Exception {
        List<String> args = new ArrayList<>(List.of("suggest", "-o", "capped-for-rerun.yaml"));
        for (int seed = 0; seed < RUNS; seed++) {
            args.add(recording(seed).toString());
        }
        assertEquals(0, Forked.cli(dir, args.toArray(String[]::new)).exit());
        String text =
                Files.readString(dir.resolve("capped-for-rerun.yaml")).replace("file: seed-0.jfr", "file: rerun.jfr");
        Files.writeString(dir.resolve("capped-for-rerun.yaml"), text);
        Forked.Result run =
                Forked.app(dir, List.of(Forked.agent(Path.of("capped-for-rerun.yaml"))), SeededWorkload.class, "7");
        assertEquals(0, run.exit(), run.toString());
        Forked.Result report = Forked.cli(dir, "report", "rerun.jfr");
        assertTrue(report.out().contains("fallbacks:         0 (0 B)   refusals: 0"), report.out());
        assertFalse(report.out().contains(" none "), "every pool is capped: " + report.out());
    }

    @Test
    void suggest_refuses_recordings_of_different_layouts_saying_which_differ() throws Exception {
        Files.writeString(
                dir.resolve("other.yaml"), GROWABLE.formatted("other").replace("page_size: 2 MiB", "page_size: 4 MiB"));
        Forked.Result run = Forked.app(dir, List.of(Forked.agent(Path.of("other.yaml"))), SeededWorkload.class, "1");
        assertEquals(0, run.exit(), run.toString());
        Forked.Result r = Forked.cli(dir, "suggest", recording(1).toString(), "seed-other.jfr");
        assertEquals(2, r.exit(), r.toString());
        assertEquals(
                List.of("pools: seed-other.jfr was recorded under a different layout than " + recording(1)
                        + ": pool 1: sliced, page_size 2097152, max_slice 2097152, pages uncapped"
                        + " vs pool 1: sliced, page_size 4194304, max_slice 4194304, pages uncapped"),
                r.errLines());
    }

    /**
     * The file settings the capped layout carries over (interception, release, exhaustion) differ while
     * the pools agree: refused too. Before, suggest wrote the first file's settings, so the release and
     * exhaustion rules of its output depended on the order the files were given in (a review).
     */
    @Test
    void suggest_refuses_recordings_whose_release_or_exhaustion_rules_differ() throws Exception {
        Files.writeString(
                dir.resolve("failing.yaml"),
                GROWABLE.formatted("failing").replace("intercept:", "on_exhausted: fail\nintercept:"));
        Forked.Result run = Forked.app(dir, List.of(Forked.agent(Path.of("failing.yaml"))), SeededWorkload.class, "1");
        assertEquals(0, run.exit(), run.toString());
        for (List<String> order : List.of(
                List.of(recording(1).toString(), "seed-failing.jfr"),
                List.of("seed-failing.jfr", recording(1).toString()))) {
            List<String> args = new ArrayList<>(List.of("suggest"));
            args.addAll(order);
            Forked.Result r = Forked.cli(dir, args.toArray(String[]::new));
            assertEquals(2, r.exit(), r.toString());
            String fail = "on_exhausted: fail";
            String fallback = "on_exhausted: fallback";
            boolean failingFirst = order.get(0).equals("seed-failing.jfr");
            assertEquals(
                    List.of("pools: " + order.get(1) + " was recorded under a different layout than " + order.get(0)
                            + ": " + (failingFirst ? fail + " vs " + fallback : fallback + " vs " + fail)),
                    r.errLines());
        }
    }

    /**
     * {@code -o} onto a file its user may not write, or into a directory they may not write in: refused,
     * with the reason, and the file kept. Before, the rename beside it replaced a read-only file of
     * another owner (the directory allowed it), and the other case named a temporary file as its
     * reason. Run as a user other than root (as root, the CLI runs as {@code nobody}).
     */
    @Test
    void an_output_file_its_user_may_not_write_is_refused_with_the_reason_and_kept() throws Exception {
        Path shared = Files.createTempDirectory("pools-cli-perm");
        try {
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
            Path jar = shared.resolve("pools.jar");
            Files.copy(Forked.JAR, jar);
            Path input = shared.resolve("in.jfr");
            Files.copy(recording(0), input);
            for (Path f : List.of(jar, input)) {
                Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
            }
            Path locked = shared.resolve("locked.yaml");
            Files.writeString(locked, "kept\n");
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("r--r--r--"));
            Path closed = shared.resolve("closed");
            Files.createDirectory(closed);
            Files.writeString(closed.resolve("capped.yaml"), "kept\n");
            Files.setPosixFilePermissions(closed.resolve("capped.yaml"), PosixFilePermissions.fromString("rw-rw-rw-"));
            Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("r-xr-xr-x"));
            boolean root = "root".equals(System.getProperty("user.name"));
            for (String[] c : new String[][] {
                {"locked.yaml", "the file is as it was"}, {"closed/capped.yaml", "the file is as it was"}
            }) {
                List<String> cmd = new ArrayList<>();
                if (root) {
                    cmd.addAll(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
                }
                cmd.addAll(List.of(Forked.java(), "-jar", jar.toString(), "suggest", "in.jfr", "-o", c[0]));
                Forked.Result r = Forked.run(shared, cmd);
                assertEquals(2, r.exit(), r.toString());
                assertEquals(
                        List.of("pools: -o " + c[0] + ": cannot write it (permission denied); " + c[1]), r.errLines());
                assertEquals("kept\n", Files.readString(shared.resolve(c[0])));
            }
            assertEquals("r--r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(locked)));
        } finally {
            Files.setPosixFilePermissions(shared.resolve("closed"), PosixFilePermissions.fromString("rwxr-xr-x"));
            try (Stream<Path> files = Files.walk(shared)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(f);
                }
            }
        }
    }

    static Stream<Arguments> badInputs() throws Exception {
        Files.writeString(dir.resolve("empty.jfr"), "");
        Files.writeString(dir.resolve("text.jfr"), "this is not a recording\n");
        byte[] whole = Files.readAllBytes(dir.resolve("seed-0.jfr"));
        Files.write(dir.resolve("truncated.jfr"), Arrays.copyOf(whole, whole.length / 2));
        // One letter of the host's class name changed in the last batch (a call site's name): read as it
        // was before the recordings had checksums, it named a site the run never had.
        byte[] damaged = whole.clone();
        String text = new String(whole, StandardCharsets.ISO_8859_1);
        damaged[text.lastIndexOf("Tensors") + 6] = 'z';
        Files.write(dir.resolve("damaged.jfr"), damaged);
        // The first letter of an event type's declared name changed to a byte no name has: JDK 25's reader
        // threw an InternalError, which reached the user with its stack trace.
        byte[] typeName = whole.clone();
        typeName[text.indexOf("pools.Layout")] ^= (byte) 0xff;
        Files.write(dir.resolve("typename.jfr"), typeName);
        Files.createDirectories(dir.resolve("folder.jfr"));
        // A folder of recordings of several JVMs: read as one, it made a fake "recovered" JVM of them all.
        Files.createDirectories(dir.resolve("recordings"));
        Files.copy(
                dir.resolve("seed-0.jfr"), dir.resolve("recordings/seed-0.jfr"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(
                dir.resolve("seed-1.jfr"), dir.resolve("recordings/seed-1.jfr"), StandardCopyOption.REPLACE_EXISTING);
        Forked.Result foreign = Forked.run(
                dir,
                List.of(
                        Forked.java(),
                        "-XX:StartFlightRecording:filename=foreign.jfr,settings=profile",
                        "-cp",
                        Forked.TEST_CLASSES.toString(),
                        "it.host.Tensors"));
        assertTrue(Files.size(dir.resolve("foreign.jfr")) > 0, foreign.toString());
        // A JVM killed before its recording's first flush: an empty file, an empty chunk beside it.
        Files.writeString(dir.resolve("killed.jfr"), "");
        Files.createDirectories(dir.resolve("killed.jfr.d/2026_12_01_10_00_00_123"));
        Files.writeString(dir.resolve("killed.jfr.d/2026_12_01_10_00_00_123/2026_12_01_10_00_00.jfr"), "");
        Forked.Result noLayout = Forked.withoutAgent(dir, ReportsWithoutLayout.class, "no-layout.jfr");
        assertEquals(0, noLayout.exit(), noLayout.toString());
        return Stream.of(
                Arguments.of(
                        "empty.jfr",
                        "empty.jfr: the file is empty (expected a JFR recording written by the pools agent;"
                                + " a JVM killed with SIGKILL leaves it empty"),
                Arguments.of(
                        "text.jfr", "text.jfr: not a JFR recording (expected a .jfr file written by the pools agent)"),
                Arguments.of("truncated.jfr", "truncated.jfr: "),
                Arguments.of("damaged.jfr", "damaged.jfr: the recording is damaged (bytes "),
                Arguments.of("typename.jfr", "typename.jfr: "),
                Arguments.of("folder.jfr", "folder.jfr: is a directory, not a recording"),
                Arguments.of(
                        "recordings",
                        "recordings: is a directory, not a recording (give its recordings, one file per JVM: report"
                                + " recordings/*.jfr)"),
                Arguments.of("missing.jfr", "missing.jfr: no such file"),
                Arguments.of("foreign.jfr", "foreign.jfr: a JFR recording without pools events"),
                Arguments.of(
                        "killed.jfr",
                        "killed.jfr: empty or missing, and the JFR repository beside it (killed.jfr.d) holds no"
                                + " data: the JVM ended or was killed before its recording's first flush"),
                Arguments.of(
                        "no-layout.jfr",
                        "no-layout.jfr: pools reports without the layout they came from (no pools.Layout event"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInputs")
    void every_verb_refuses_a_bad_recording_with_one_line_and_status_2(String file, String message) throws Exception {
        for (List<String> verb : List.of(
                List.of("report"), List.of("report", "--json"), List.of("suggest"), List.of("html", "-o", "x.html"))) {
            List<String> args = new ArrayList<>(verb);
            args.add(file);
            Forked.Result r = Forked.cli(dir, args.toArray(String[]::new));
            assertEquals(2, r.exit(), verb + " " + r);
            assertEquals(1, r.errLines().size(), verb + " " + r);
            assertTrue(r.errLines().get(0).startsWith("pools: " + message), verb + " " + r.errLines());
            assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        }
    }

    /**
     * In a fleet, a JVM that recorded nothing (an executor stopped before its recording's first
     * flush) is left out with one line, and the others are reported and merged; alone, it is an error.
     */
    @Test
    void a_recording_that_holds_nothing_is_left_out_of_a_fleet() throws Exception {
        Files.writeString(dir.resolve("stopped.jfr"), "");
        Files.createDirectories(dir.resolve("stopped.jfr.d/2026_12_01_11_00_00_456"));
        Files.writeString(dir.resolve("stopped.jfr.d/2026_12_01_11_00_00_456/2026_12_01_11_00_00.jfr"), "");
        String leftOut = "pools: left out stopped.jfr: empty or missing, and the JFR repository beside it";
        for (String verb : List.of("report", "suggest")) {
            Forked.Result r =
                    Forked.cli(dir, verb, recording(0).toString(), recording(1).toString(), "stopped.jfr");
            assertEquals(0, r.exit(), verb + " " + r);
            assertEquals(1, r.errLines().size(), verb + " " + r);
            assertTrue(r.errLines().get(0).startsWith(leftOut), verb + " " + r);
        }
        Forked.Result fleet =
                Forked.cli(dir, "report", recording(0).toString(), recording(1).toString(), "stopped.jfr");
        assertTrue(fleet.out().contains("fleet: 2 JVMs"), fleet.out());
    }

    /**
     * An empty, cut or missing file given with others is left out with one line, as the README says
     * of empty and unreadable files; a foreign file is still an error. Before, only a file with an
     * empty JFR repository beside it was left out, and an empty file stopped the whole command.
     */
    @Test
    void an_empty_cut_or_missing_file_among_others_is_left_out() throws Exception {
        Files.writeString(dir.resolve("zero.jfr"), "");
        byte[] whole = Files.readAllBytes(recording(0));
        for (int cut : new int[] {68, 6000, whole.length / 2, whole.length - 1}) {
            Files.write(dir.resolve("cut.jfr"), Arrays.copyOf(whole, cut));
            for (String other : List.of("zero.jfr", "cut.jfr", "nowhere.jfr")) {
                Forked.Result r = Forked.cli(
                        dir, "report", recording(0).toString(), recording(1).toString(), other);
                assertEquals(0, r.exit(), cut + " " + other + " " + r);
                assertEquals(1, r.errLines().size(), r.toString());
                assertTrue(r.errLines().get(0).startsWith("pools: left out " + other + ": "), r.toString());
                assertTrue(r.out().contains("fleet: 2 JVMs"), r.out());
            }
        }
        Files.writeString(dir.resolve("words.jfr"), "this is not a recording\n");
        Forked.Result foreign = Forked.cli(dir, "report", recording(0).toString(), "words.jfr");
        assertEquals(2, foreign.exit(), foreign.toString());
    }

    /**
     * suggest -o and html -o write their file whole or not at all, through a file beside it renamed
     * over it, and never over one of their own inputs; -o - is standard output. Before, -o naming the recording replaced it with
     * the output (exit 0), and a failed write left the target cut or empty.
     */
    @Test
    void an_output_file_is_never_an_input_and_a_bad_target_is_one_line() throws Exception {
        Path input = dir.resolve("keep.jfr");
        Files.copy(recording(0), input, StandardCopyOption.REPLACE_EXISTING);
        byte[] before = Files.readAllBytes(input);
        for (List<String> verb : List.of(List.of("suggest", "keep.jfr"), List.of("html", "keep.jfr"))) {
            for (String target :
                    List.of("keep.jfr", "./keep.jfr", dir.resolve("keep.jfr").toString())) {
                List<String> args = new ArrayList<>(verb);
                args.addAll(List.of("-o", target));
                Forked.Result r = Forked.cli(dir, args.toArray(String[]::new));
                assertEquals(2, r.exit(), r.toString());
                assertEquals(
                        List.of("pools: -o " + target + ": is keep.jfr, which this command reads; write to"
                                + " another file"),
                        r.errLines());
                assertArrayEquals(before, Files.readAllBytes(input), "the recording is as it was");
            }
            for (String[] bad : new String[][] {
                {"nowhere/out.txt", "no such directory"},
                {"keep.jfr/out.txt", "no such directory"},
                {".", "is a directory"}
            }) {
                List<String> args = new ArrayList<>(verb);
                args.addAll(List.of("-o", bad[0]));
                Forked.Result r = Forked.cli(dir, args.toArray(String[]::new));
                assertEquals(2, r.exit(), r.toString());
                assertEquals(1, r.errLines().size(), r.toString());
                assertTrue(r.errLines().get(0).startsWith("pools: -o " + bad[0] + ": " + bad[1]), r.toString());
            }
            // -o - is standard output, as for most tools: no file named "-".
            List<String> toStdout = new ArrayList<>(verb);
            toStdout.addAll(List.of("-o", "-"));
            Forked.Result out = Forked.cli(dir, toStdout.toArray(String[]::new));
            assertEquals(0, out.exit(), out.toString());
            assertTrue(out.out().startsWith(verb.get(0).equals("html") ? "<!DOCTYPE html>" : "# "), out.out());
            assertEquals(List.of(), out.errLines(), out.toString());
            assertFalse(Files.exists(dir.resolve("-")), "no file named -");
            Files.writeString(dir.resolve("out.txt"), "old");
            List<String> args = new ArrayList<>(verb);
            args.addAll(List.of("-o", "out.txt"));
            Forked.Result r = Forked.cli(dir, args.toArray(String[]::new));
            assertEquals(0, r.exit(), r.toString());
            assertFalse(Files.readString(dir.resolve("out.txt")).equals("old"), "replaced");
            try (var files = Files.list(dir)) {
                assertEquals(
                        List.of(),
                        files.filter(f -> f.getFileName().toString().endsWith(".tmp"))
                                .toList());
            }
        }
    }

    @Test
    void usage_errors_and_help_follow_the_exit_codes() throws Exception {
        Forked.Result help = Forked.cli(dir, "--help");
        assertEquals(0, help.exit());
        assertTrue(
                help.out().contains("report")
                        && help.out().contains("suggest")
                        && help.out().contains("html")
                        && help.out().contains("check")
                        && help.out().contains("Exit status"),
                help.out());
        assertEquals(2, Forked.cli(dir, "report").exit(), "a missing argument is bad input");
        assertEquals(2, Forked.cli(dir, "frobnicate").exit());
        // One line, not the whole usage (found by a review).
        Forked.Result option =
                Forked.cli(dir, "report", "--frobnicate", recording(0).toString());
        assertEquals(2, option.exit(), option.toString());
        assertEquals(
                List.of("pools: Unknown option: '--frobnicate'; see java -jar pools.jar report --help"),
                option.errLines());
        Forked.Result near = Forked.cli(dir, "report", "--jsn", recording(0).toString());
        assertEquals(
                List.of("pools: Unknown option: '--jsn' (did you mean --json?); see java -jar pools.jar report --help"),
                near.errLines());
        Forked.Result headroom =
                Forked.cli(dir, "suggest", "--headroom", "lots", recording(0).toString());
        assertEquals(2, headroom.exit());
        assertEquals(
                List.of(
                        "pools: --headroom lots: expected a percentage from 0% to 1000%, at most 4 decimal places, e.g. 10%"),
                headroom.errLines());
        // Found by a review: Double's own syntax (10d, 0x1p3) was taken for a percentage.
        Forked.Result hex =
                Forked.cli(dir, "suggest", "--headroom", "10d", recording(0).toString());
        assertEquals(2, hex.exit(), hex.toString());
        assertEquals(
                List.of(
                        "pools: --headroom 10d: expected a percentage from 0% to 1000%, at most 4 decimal places, e.g. 10%"),
                hex.errLines());
        Forked.Result half =
                Forked.cli(dir, "suggest", "--headroom", "10.5%", recording(0).toString());
        assertEquals(0, half.exit(), half.toString());
        assertTrue(half.out().contains(", headroom 10.5%.\n"), half.out());
        // Found by a review: these ended in an internal error with a stack trace.
        Forked.Result top =
                Forked.cli(dir, "report", "--top", "-1", recording(0).toString());
        assertEquals(2, top.exit(), top.toString());
        assertEquals(List.of("pools: --top -1: expected a number of call sites, 0 or more"), top.errLines());
        Files.writeString(dir.resolve("huge.txt"), "# pools trace v1\na 1 99999999999999 x\n");
        Forked.Result fit = Forked.cli(dir, "suggest", recording(0).toString(), "--fit", "huge.txt");
        assertEquals(2, fit.exit(), fit.toString());
        assertEquals(1, fit.errLines().size(), fit.toString());
        assertTrue(fit.errLines().get(0).startsWith("pools: huge.txt:2: not a line of a pools trace"), fit.toString());
        // A request of 0 bytes, which the agent never traces: an internal error before, in the replay.
        Files.writeString(dir.resolve("zero.txt"), "a 1 0 x\n");
        Forked.Result zero = Forked.cli(dir, "suggest", recording(0).toString(), "--fit", "zero.txt");
        assertEquals(2, zero.exit(), zero.toString());
        assertEquals(1, zero.errLines().size(), zero.toString());
        assertTrue(
                zero.errLines().get(0).startsWith("pools: zero.txt:1: not a line of a pools trace"), zero.toString());
    }

    /**
     * suggest --fit on a deterministic workload: the page sizes chosen by replaying its trace reserve
     * less than the measured layout at its peak, and the same workload runs again under them, caps
     * and all, with on_exhausted: fail, and nothing refused.
     */
    @Test
    void suggest_fit_chooses_page_sizes_that_the_same_workload_fits_again() throws Exception {
        Files.writeString(
                dir.resolve("fit.yaml"),
                GROWABLE.formatted("fit").replace("period: 100 ms", "period: 100 ms\n  trace: fit.trace"));
        Forked.Result measure = Forked.app(dir, List.of(Forked.agent(Path.of("fit.yaml"))), SeededWorkload.class, "6");
        assertEquals(0, measure.exit(), measure.toString());
        Forked.Result fit = Forked.cli(
                dir,
                "suggest",
                "seed-fit.jfr",
                "--fit",
                "fit.trace",
                "--report-file",
                "fitted.jfr",
                "-o",
                "fitted.yaml");
        assertEquals(0, fit.exit(), fit.toString());
        String fitted = Files.readString(dir.resolve("fitted.yaml"));
        Matcher search = Pattern.compile(
                        "# Page sizes fitted to the traces: (\\d+) layouts .* \\((\\d+\\.\\d+)\\); the measured layout's pools, .*"
                                + " \\((\\d+\\.\\d+)\\)\\.")
                .matcher(fitted);
        assertTrue(search.find(), fitted);
        double ratio = Double.parseDouble(search.group(2));
        assertTrue(ratio < Double.parseDouble(search.group(3)), "better than the measured layout: " + fitted);
        assertFalse(fitted.contains("trace:"), "the capped run is not traced: " + fitted);
        // Nor without --fit: its trace would overwrite the measured run's (found by a review).
        Forked.Result plain = Forked.cli(dir, "suggest", "seed-fit.jfr");
        assertEquals(0, plain.exit(), plain.toString());
        assertFalse(plain.out().contains("trace:"), plain.out());

        Files.writeString(
                dir.resolve("fitted-fail.yaml"), fitted.replace("on_exhausted: fallback", "on_exhausted: fail"));
        Forked.Result again =
                Forked.app(dir, List.of(Forked.agent(Path.of("fitted-fail.yaml"))), SeededWorkload.class, "6");
        assertEquals(0, again.exit(), again.toString());
        Forked.Result report = Forked.cli(dir, "report", "fitted.jfr");
        assertTrue(report.out().contains("fallbacks:         0 (0 B)   refusals: 0"), report.out());

        Forked.Result bad = Forked.cli(dir, "suggest", "seed-fit.jfr", "--fit", "fit.yaml");
        assertEquals(2, bad.exit(), bad.toString());
        assertTrue(bad.err().startsWith("pools: fit.yaml:1: not a line of a pools trace"), bad.err());
    }

    /**
     * A replay that fills suggest's heap (two threads taking turns, 400 000 requests none released,
     * -Xmx72m) ends with a line that says so. Before, suggest hung, SIGTERM included: a replay
     * thread's handler made an allocation while the heap was full and the other threads waited for a
     * turn for ever (a review), and on JDK 25 about one run in two hung on a pool's lock held by a
     * replay thread that had ended (the JVM unwound its frames past their finally blocks: "failed
     * reallocation of scalar replaced objects"; see OwnedLock). A replay that ran out of heap or threads
     * was also read as a refusal, and suggest blamed the direct memory limit. Whether the trace's
     * reading or its replay runs out depends on the JVM: either is said in one line.
     */
    @Test
    void a_replay_that_fills_the_heap_ends_and_says_so() throws Exception {
        Files.writeString(
                dir.resolve("m.yaml"), "layout: sliced\npools:\n  - page_size: 64 KiB\nreport:\n  file: m.jfr\n");
        Forked.Result recorded = Forked.run(dir, List.of(Forked.java(), Forked.agent(Path.of("m.yaml")), "-version"));
        assertEquals(0, recorded.exit(), recorded.toString());
        StringBuilder trace = new StringBuilder("# pools trace v2\n");
        for (int i = 1; i <= 400_000; i++) {
            trace.append("a ").append(i).append(" 64 s ").append(1 + i % 2).append('\n');
        }
        Files.writeString(dir.resolve("heap.trace"), trace);
        Forked.Result fit = Forked.run(
                dir,
                List.of(
                        Forked.java(),
                        "-Xmx72m",
                        "-XX:MaxDirectMemorySize=2g",
                        "-jar",
                        Forked.JAR.toString(),
                        "suggest",
                        "m.jfr",
                        "--fit",
                        "heap.trace"));
        assertEquals(2, fit.exit(), fit.toString());
        String last = fit.errLines().get(fit.errLines().size() - 1);
        assertTrue(
                last.startsWith("pools: heap.trace: the trace does not fit this JVM's heap")
                        || last.startsWith("pools: the replay of heap.trace ran out of memory: Java heap space"),
                fit.toString());
    }
}
