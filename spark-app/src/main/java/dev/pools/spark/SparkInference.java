package dev.pools.spark;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * The driver: batch inference with DJL's PyTorch engine in the executors of a Spark cluster, by
 * default {@code local-cluster[2,1,1024]} (an in-process Master and two Workers, each Worker
 * launching its executor as a JVM of its own). The agent, if given, goes on the executors only,
 * through {@code spark.executor.extraJavaOptions}: the driver runs no tensors.
 *
 * <p>It prints one deterministic line, {@code result: <n> predictions, checksum <crc32>} (the
 * classes of every row, in partition order), and the job's wall time. With
 * {@code --kill-executor-after-ms N} it kills one executor JVM (SIGKILL) N ms into the job: Spark
 * runs the lost tasks again elsewhere, and the result stays the same.
 *
 * <p>Needs, in its environment, {@code SPARK_HOME} (a folder whose {@code jars/} holds Spark's
 * runtime jars), {@code SPARK_SCALA_VERSION=2.13}, and best {@code SPARK_LOCAL_IP=127.0.0.1}.
 */
public final class SparkInference {

    private static final String EXECUTOR_MAIN = "CoarseGrainedExecutorBackend";

    private SparkInference() {}

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        String sparkHome = System.getenv("SPARK_HOME");
        if (options.expectedExecutors() > 0 && (sparkHome == null || !Files.isDirectory(Path.of(sparkHome, "jars")))) {
            throw new IllegalStateException("local-cluster needs SPARK_HOME with a jars/ folder of Spark's runtime jars"
                    + " (spark-app/target/spark-home after mvn package), and SPARK_SCALA_VERSION=2.13");
        }
        SparkConf conf = new SparkConf()
                .setMaster(options.master())
                .setAppName("pools-spark-inference")
                .set("spark.ui.enabled", "false")
                .set("spark.jars", appJar(options).toString());
        String executorOptions = executorJavaOptions(options, conf.get("spark.executor.extraJavaOptions", ""));
        if (sparkHome != null) {
            // Block files and the executors' temporary files under SPARK_HOME,
            // next to the Workers' work/ folder: nothing left in /tmp.
            Path home = Path.of(sparkHome).toAbsolutePath();
            conf.set("spark.local.dir", home.resolve("local").toString());
            Files.createDirectories(home.resolve("tmp"));
            executorOptions += " -Djava.io.tmpdir=" + home.resolve("tmp");
        }
        conf.set("spark.executor.extraJavaOptions", executorOptions);
        System.out.println("executor options: " + conf.get("spark.executor.extraJavaOptions"));
        long start = System.nanoTime();
        List<ProcessHandle> executors;
        try (JavaSparkContext sc = new JavaSparkContext(conf)) {
            awaitExecutors(sc, options.expectedExecutors());
            System.out.printf(
                    Locale.ROOT,
                    "%d executors up in %d ms: JVMs %s%n",
                    options.expectedExecutors(),
                    millisSince(start),
                    executorPids());
            List<Integer> numbers =
                    IntStream.range(0, options.partitions()).boxed().toList();
            ScheduledExecutorService killer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "executor-killer");
                t.setDaemon(true);
                return t;
            });
            long jobStart = System.nanoTime();
            ScheduledFuture<?> kill = options.killExecutorAfterMs() < 0
                    ? null
                    : killer.schedule(
                            () -> killOneExecutor(jobStart), options.killExecutorAfterMs(), TimeUnit.MILLISECONDS);
            String result = classify(sc, numbers);
            long jobMs = millisSince(jobStart);
            if (kill != null && kill.cancel(false)) {
                System.out.printf(Locale.ROOT, "kill: none, the job ended after %d ms%n", jobMs);
            }
            killer.shutdownNow();
            System.out.println(result);
            System.out.printf(
                    Locale.ROOT,
                    "job wall time: %d ms (%d partitions of %d rows, executor JVMs at the end: %s)%n",
                    jobMs,
                    options.partitions(),
                    PartitionInference.rowsPerPartition(),
                    executorPids());
            if (options.killWhenFlushed() != null) {
                killOnceFlushed(options.killWhenFlushed());
                String again = classify(sc, numbers);
                if (!again.equals(result)) {
                    throw new IllegalStateException("after the kill the job gave " + again + ", before " + result);
                }
                System.out.println("after the kill: the same result, executor JVMs " + executorPids());
            }
            for (int round = 2; round <= options.rounds(); round++) {
                long roundStart = System.nanoTime();
                String again = classify(sc, numbers);
                long roundMs = millisSince(roundStart);
                if (!again.equals(result)) {
                    throw new IllegalStateException("round " + round + " gave " + again + ", round 1 " + result);
                }
                System.out.printf(Locale.ROOT, "round %d wall time: %d ms, the same result%n", round, roundMs);
            }
            executors = ProcessHandle.current()
                    .descendants()
                    .filter(SparkInference::isExecutor)
                    .toList();
        }
        awaitExit(executors);
    }

    /** One job over every partition: {@code result: <predictions> predictions, checksum <crc32 of the classes>}. */
    private static String classify(JavaSparkContext sc, List<Integer> numbers) {
        List<byte[]> classes = sc.parallelize(numbers, numbers.size())
                .mapPartitions(PartitionInference::classify)
                .collect();
        CRC32 checksum = new CRC32();
        long predictions = 0;
        for (byte[] part : classes) {
            checksum.update(part);
            predictions += part.length;
        }
        return String.format(Locale.ROOT, "result: %d predictions, checksum %08x", predictions, checksum.getValue());
    }

    /**
     * The executors' JVM options: whatever {@code spark.executor.extraJavaOptions} the driver was
     * given, DJL offline with one PyTorch thread (each executor has one core), and the agent.
     */
    static String executorJavaOptions(Options options, String given) {
        List<String> opts = new ArrayList<>();
        if (!given.isBlank()) {
            opts.add(given.strip());
        }
        opts.add("-Dai.djl.offline=true");
        opts.add("-Dai.djl.pytorch.num_threads=1");
        opts.add("-Dai.djl.pytorch.num_interop_threads=1");
        if (Runtime.version().feature() >= 22) {
            opts.add("--enable-native-access=ALL-UNNAMED");
        }
        if (options.agent() != null) {
            opts.add("-javaagent:" + options.agent() + (options.layout() == null ? "" : "=" + options.layout()));
        }
        return String.join(" ", opts);
    }

    private static Path appJar(Options options) throws URISyntaxException {
        if (options.appJar() != null) {
            return options.appJar();
        }
        Path own = Path.of(SparkInference.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        if (!Files.isRegularFile(own)) {
            throw new IllegalStateException("the executors need this class in a jar: run from spark-app.jar, or give"
                    + " --app-jar (loaded from " + own + ")");
        }
        return own;
    }

    private static void awaitExecutors(JavaSparkContext sc, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        // The driver counts as one of the executor infos.
        while (sc.sc().statusTracker().getExecutorInfos().length < expected + 1) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("fewer than " + expected + " executors registered within 120 s");
            }
            Thread.sleep(50);
        }
    }

    /** The executor JVMs below this one (the Workers are threads of the driver, their executors its children). */
    private static List<Long> executorPids() {
        return ProcessHandle.current()
                .descendants()
                .filter(SparkInference::isExecutor)
                .map(ProcessHandle::pid)
                .sorted()
                .toList();
    }

    private static boolean isExecutor(ProcessHandle p) {
        return p.info().commandLine().orElse("").contains(EXECUTOR_MAIN);
    }

    /**
     * Stopping the context stops the executors (SIGTERM) without waiting for them; an executor under
     * the agent writes its recording as it exits, so the driver returns only once they are gone.
     */
    private static void awaitExit(List<ProcessHandle> executors) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (ProcessHandle p : executors) {
            try {
                p.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException | TimeoutException e) {
                System.out.printf(Locale.ROOT, "executor JVM %d still running 60 s after the stop%n", p.pid());
            }
        }
    }

    /**
     * Kills one executor JVM with SIGKILL once its recording ({@code <folder>/*-<pid>.jfr}) has grown
     * three times: the agent appends a batch every {@code report.period}, so the third holds what the
     * executor did in the round before. Nothing is timed: it waits for the file, at most two minutes.
     */
    private static void killOnceFlushed(Path folder) throws IOException, InterruptedException {
        List<Long> before = executorPids();
        long pid = before.get(0);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        long size = -1;
        int grew = 0;
        while (grew < 3 && System.nanoTime() < deadline) {
            long now = recordingBytes(folder, pid);
            if (size >= 0 && now > size) {
                grew++;
            }
            size = now;
            Thread.sleep(50);
        }
        boolean sent = ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false);
        System.out.printf(
                Locale.ROOT,
                "kill: SIGKILL to executor JVM %d once its recording had been flushed %d times: %s%n",
                pid,
                grew,
                sent ? "sent" : "not sent");
        // The Worker starts an executor in the killed one's place. Its recording starts about a second
        // after its JVM; a job that ended sooner would stop it before it recorded anything. Wait for
        // its first batch (the file grows past what it held at its start), so that every executor of
        // the measured run has something to report.
        long replacement = -1;
        long started = -1;
        while (System.nanoTime() < deadline) {
            if (replacement < 0) {
                replacement = executorPids().stream()
                        .filter(p -> !before.contains(p))
                        .findFirst()
                        .orElse(-1L);
            } else {
                long now = recordingBytes(folder, replacement);
                if (started <= 0) {
                    started = now;
                } else if (now > started) {
                    System.out.printf(
                            Locale.ROOT, "replacement: executor JVM %d, its recording flushed%n", replacement);
                    return;
                }
            }
            Thread.sleep(50);
        }
        System.out.printf(Locale.ROOT, "replacement: none recording within two minutes of the kill%n");
    }

    /** Bytes of executor {@code pid}'s recording in {@code folder}: 0 until it exists. */
    private static long recordingBytes(Path folder, long pid) throws IOException {
        String suffix = "-" + pid + ".jfr";
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix))
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    private static void killOneExecutor(long jobStart) {
        List<Long> pids = executorPids();
        if (pids.isEmpty()) {
            System.out.printf(
                    Locale.ROOT, "kill: no executor JVM found at %d ms into the job%n", millisSince(jobStart));
            return;
        }
        long pid = pids.get(0);
        boolean sent = ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false);
        System.out.printf(
                Locale.ROOT,
                "kill: SIGKILL to executor JVM %d (of %s) at %d ms into the job: %s%n",
                pid,
                pids,
                millisSince(jobStart),
                sent ? "sent" : "not sent");
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }
}
