package dev.pools.it;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs a Java program in a JVM of its own, the way users run it: the same JDK as the tests, the
 * real shaded {@code pools.jar} as agent or as CLI, the test classes as the application.
 */
public final class Forked {

    /** What a finished JVM left: exit status, standard output and standard error. */
    public record Result(int exit, String out, String err) {
        public List<String> errLines() {
            return err.isBlank() ? List.of() : Arrays.asList(err.strip().split("\\R"));
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    public static final Path JAR =
            Path.of(System.getProperty("pools.jar", "target/pools.jar")).toAbsolutePath();
    public static final Path TEST_CLASSES = Path.of(System.getProperty("pools.testClasses", "target/test-classes"))
            .toAbsolutePath();

    private Forked() {}

    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** {@code -javaagent:pools.jar[=layout]}. */
    /** A layout of one sliced pool of {@code pages} pages of 1 MiB under {@code fail}, for the host {@code it.host}, unrecorded. */
    public static String cappedToFail(int pages) {
        return """
                layout: sliced
                pools:
                  - page_size: 1 MiB
                    pages: %d
                intercept:
                  packages: [it.host]
                on_exhausted: fail
                report:
                  file: none
                """.formatted(pages);
    }

    public static String agent(Path layout) {
        return "-javaagent:" + JAR + (layout == null ? "" : "=" + layout);
    }

    /** Runs {@code java <jvmArgs> -cp <test classes> <main> <args>} in {@code dir}. */
    public static Result app(Path dir, List<String> jvmArgs, Class<?> main, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.add("-Dpools.quiet=false");
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(TEST_CLASSES.toString());
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        return run(dir, cmd);
    }

    /** Runs {@code java -cp <test classes>:pools.jar <main> <args>} in {@code dir}: the pools' classes without the agent. */
    public static Result withoutAgent(Path dir, Class<?> main, String... args)
            throws IOException, InterruptedException {
        List<String> cmd =
                new ArrayList<>(List.of(java(), "-cp", TEST_CLASSES + File.pathSeparator + JAR, main.getName()));
        cmd.addAll(List.of(args));
        return run(dir, cmd);
    }

    /**
     * Runs {@code java -jar pools.jar report} in {@code dir} on the recording an agent with no layout
     * file wrote there ({@code pools-<pid>.jfr}, the only one).
     */
    public static Result reportOfDefaultRecording(Path dir) throws IOException, InterruptedException {
        return cli(dir, "report", onlyDefaultRecording(dir).toString());
    }

    /** The recording an agent with no layout file wrote in {@code dir} ({@code pools-<pid>.jfr}, the only one). */
    public static Path onlyDefaultRecording(Path dir) throws IOException {
        List<Path> recordings;
        try (Stream<Path> files = Files.list(dir)) {
            recordings = files.filter(f -> f.getFileName().toString().matches("pools-\\d+\\.jfr"))
                    .toList();
        }
        if (recordings.size() != 1) {
            throw new AssertionError("expected one pools-<pid>.jfr in " + dir + ", found " + recordings);
        }
        return recordings.get(0);
    }

    /** Runs {@code java -jar pools.jar <args>} in {@code dir}. */
    public static Result cli(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(java(), "-jar", JAR.toString()));
        cmd.addAll(List.of(args));
        return run(dir, cmd);
    }

    public static Result run(Path dir, List<String> cmd) throws IOException, InterruptedException {
        return run(dir, cmd, Map.of());
    }

    /** {@link #run(Path, List)} with {@code env} added to the environment. */
    public static Result run(Path dir, List<String> cmd, Map<String, String> env)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("forked", ".out");
        Path err = Files.createTempFile("forked", ".err");
        try {
            ProcessBuilder builder = new ProcessBuilder(cmd)
                    .directory(dir.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            builder.environment().putAll(env);
            Process p = builder.start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("timed out: " + cmd);
            }
            return new Result(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
