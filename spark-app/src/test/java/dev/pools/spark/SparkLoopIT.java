package dev.pools.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop of run-spark.sh on a real Spark cluster ({@code local-cluster[2,1,1024]}: two executor
 * JVMs), through the real shaded {@code pools.jar} on the executors: the job without the agent,
 * measured (one recording per executor JVM; one executor killed with SIGKILL in the middle, its
 * recording read up to its last flush), the recordings merged by {@code suggest}, the job again
 * under the caps: the same result, no fallback and no refusal in any executor.
 */
class SparkLoopIT {

    private static final Path POOLS = Path.of(System.getProperty("pools.jar")).toAbsolutePath();
    private static final Path APP = Path.of(System.getProperty("spark.app.jar")).toAbsolutePath();
    private static final Path BUILT_HOME =
            Path.of(System.getProperty("spark.app.home")).toAbsolutePath();
    private static final Path LAYOUTS =
            Path.of(System.getProperty("spark.app.layouts")).toAbsolutePath();
    private static final Pattern RESULT = Pattern.compile("(?m)^result: .*$");
    private static final Pattern EXECUTORS_AT_END = Pattern.compile("executor JVMs at the end: \\[([\\d, ]*)]");
    private static final String CLEAN = "fallbacks:         0 (0 B)   refusals: 0";

    /** The whole loop's budget: each process gets at most what is left of it. */
    private static final long BUDGET_SECONDS = 270;

    @TempDir
    Path dir;

    private final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BUDGET_SECONDS);

    record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    @Test
    void every_executor_measured_then_merged_capped_and_rerun_with_the_same_result_and_no_fallback() throws Exception {
        Result plain = job("plain");
        String expected = result(plain);

        // Measured, with one executor killed (SIGKILL) in the middle, once its recording has flushed:
        // Spark runs its tasks again elsewhere; the killed executor's recording is read up to its last flush.
        Files.writeString(dir.resolve("measure.yaml"), withReportFile("measure-%p.jfr"));
        Result measured = job(
                "measure",
                "--agent",
                POOLS.toString(),
                "--layout",
                "measure.yaml",
                "--kill-executor-when-flushed",
                dir.toString());
        assertEquals(expected, result(measured), "the same result under the measuring layout");
        Matcher kill = Pattern.compile(
                        "kill: SIGKILL to executor JVM (\\d+) once its recording had been flushed 3" + " times: sent")
                .matcher(measured.out());
        assertTrue(kill.find(), measured.toString());
        assertTrue(measured.out().contains("after the kill: the same result"), measured.toString());
        long killed = Long.parseLong(kill.group(1));
        Path killedRecording = dir.resolve("measure-" + killed + ".jfr");
        assertTrue(Files.size(killedRecording) > 0, "the killed executor's recording holds what it had flushed");
        List<Path> measures = recordings("measure-");
        List<Long> pids = pids(measures, "measure-");
        assertTrue(pids.contains(killed), pids.toString());
        assertTrue(pids.containsAll(executorPidsAtEnd(measured)), "every executor's recording: " + pids + measured);

        List<String> reportMeasured = new ArrayList<>(List.of("report"));
        measures.forEach(p -> reportMeasured.add(p.toString()));
        Result fleet = cli(reportMeasured);
        assertEquals(0, fleet.exit(), fleet.toString());
        assertTrue(
                fleet.out().contains("fleet: " + measures.size() + " JVMs, 1 recovered from a JVM that did not exit"),
                fleet.out());
        assertTrue(
                fleet.out().contains("recovered from " + killedRecording + ": its JVM did not end the recording"),
                fleet.out());

        List<String> suggest = new ArrayList<>(List.of("suggest"));
        measures.forEach(p -> suggest.add(p.toString()));
        suggest.addAll(List.of("--report-file", dir.resolve("capped-%p.jfr").toString(), "-o", "capped.yaml"));
        Result suggested = cli(suggest);
        assertEquals(0, suggested.exit(), suggested.toString());
        String capped = Files.readString(dir.resolve("capped.yaml"));
        assertTrue(capped.contains("from " + measures.size() + " recordings"), capped);
        assertTrue(
                capped.contains("measure-" + killed + ".jfr: recovered from a JVM that did not exit cleanly"), capped);
        assertTrue(capped.contains("on_exhausted: fallback"), capped);

        Result rerun = job("capped", "--agent", POOLS.toString(), "--layout", "capped.yaml");
        assertEquals(expected, result(rerun), "the same result under the caps");
        List<Path> cappedRecordings = recordings("capped-");
        assertEquals(2, cappedRecordings.size(), "one recording per executor JVM: " + cappedRecordings);

        List<String> report = new ArrayList<>(List.of("report"));
        cappedRecordings.forEach(p -> report.add(p.toString()));
        Result reported = cli(report);
        assertEquals(0, reported.exit(), reported.toString());
        Map<String, String> sections = byRecording(reported.out());
        assertEquals(2, sections.size(), reported.out());
        sections.forEach(
                (file, text) -> assertTrue(text.contains(CLEAN), "no fallback, no refusal in " + file + ":\n" + text));
    }

    /** The measuring layout checked in, with its recording in this test's folder (an absolute path, with %p). */
    private String withReportFile(String name) throws IOException {
        return Files.readString(LAYOUTS.resolve("measure.yaml"))
                .replaceAll("(?m)^  file: .*$", "  file: " + dir.resolve(name));
    }

    private Result job(String name, String... options) throws Exception {
        Path home = sparkHome();
        List<String> cmd = new ArrayList<>(List.of(
                java(),
                "-XX:+IgnoreUnrecognizedVMOptions",
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-cp",
                home.resolve("conf") + ":" + APP + ":" + home.resolve("jars") + "/*",
                SparkInference.class.getName()));
        cmd.addAll(Arrays.asList(options));
        Result r = run(name, cmd, 180);
        assertEquals(0, r.exit(), r.toString());
        return r;
    }

    private Result cli(List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java(), "-jar", POOLS.toString()));
        cmd.addAll(args);
        return run(args.get(0), cmd, 60);
    }

    /**
     * A SPARK_HOME of this test's own, whose jars/ and conf/ are the build's: the Workers' work/
     * folders and the executors' temporary files go into this test's folder.
     */
    private Path sparkHome() throws IOException {
        Path home = dir.resolve("spark-home");
        if (!Files.isDirectory(home)) {
            Files.createDirectories(home);
            Files.createSymbolicLink(home.resolve("jars"), BUILT_HOME.resolve("jars"));
            Files.createSymbolicLink(home.resolve("conf"), BUILT_HOME.resolve("conf"));
        }
        return home;
    }

    /**
     * Runs a command in the test's folder, its output in {@code <name>.out} and {@code <name>.err}
     * there; past its timeout or the loop's budget, the process and everything it started (the
     * executors) are killed.
     */
    private Result run(String name, List<String> cmd, long timeoutSeconds) throws Exception {
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        Map<String, String> env = pb.environment();
        env.put("SPARK_HOME", dir.resolve("spark-home").toString());
        env.put("SPARK_SCALA_VERSION", "2.13");
        env.put("SPARK_LOCAL_IP", "127.0.0.1");
        // The executors run on JAVA_HOME's java: the JDK of the test, as the driver.
        env.put("JAVA_HOME", System.getProperty("java.home"));
        long timeout = Math.min(TimeUnit.SECONDS.toNanos(timeoutSeconds), deadline - System.nanoTime());
        Process p = pb.start();
        if (!p.waitFor(timeout, TimeUnit.NANOSECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("timed out (" + timeoutSeconds + " s for the process, " + BUDGET_SECONDS
                    + " s for the whole loop): " + cmd + "\n" + new Result(-1, read(out), read(err)));
        }
        return new Result(p.exitValue(), read(out), read(err));
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String result(Result r) {
        Matcher m = RESULT.matcher(r.out());
        assertTrue(m.find(), r.toString());
        return m.group();
    }

    private static List<Long> executorPidsAtEnd(Result r) {
        Matcher m = EXECUTORS_AT_END.matcher(r.out());
        assertTrue(m.find(), r.toString());
        return Arrays.stream(m.group(1).split(",\\s*"))
                .filter(s -> !s.isBlank())
                .map(Long::parseLong)
                .sorted()
                .toList();
    }

    private List<Path> recordings(String prefix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix)
                            && p.getFileName().toString().endsWith(".jfr"))
                    .sorted()
                    .toList();
        }
    }

    private static List<Long> pids(List<Path> recordings, String prefix) {
        return recordings.stream()
                .map(p -> p.getFileName().toString())
                .map(n -> Long.parseLong(n.substring(prefix.length(), n.length() - ".jfr".length())))
                .sorted()
                .toList();
    }

    /** The report's text split at each recording's heading ({@code <file>.jfr: <start> to <end> ...}). */
    private static Map<String, String> byRecording(String report) {
        Map<String, String> sections = new LinkedHashMap<>();
        Matcher heading = Pattern.compile("(?m)^(\\S+\\.jfr): ").matcher(report);
        List<Integer> starts = new ArrayList<>();
        List<String> names = new ArrayList<>();
        while (heading.find()) {
            starts.add(heading.start());
            names.add(heading.group(1));
        }
        for (int i = 0; i < starts.size(); i++) {
            int end = i + 1 < starts.size() ? starts.get(i + 1) : report.length();
            sections.put(names.get(i), report.substring(starts.get(i), end));
        }
        return sections;
    }
}
