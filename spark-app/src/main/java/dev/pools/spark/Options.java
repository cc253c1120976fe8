package dev.pools.spark;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The driver's options, read once: {@code --name value} arguments, each with a system property of
 * the driver as its default ({@code -Dpools.spark.name=value}).
 *
 * @param master the Spark master; two executors of one core and 1 GiB each by default
 * @param partitions how many tasks the job has
 * @param agent pools.jar for the executors, or null for none
 * @param layout the layout file for the agent, or null for the agent's default
 * @param appJar the jar shipped to the executors (spark.jars): this class's own jar by default
 * @param killExecutorAfterMs kill one executor JVM this long after the job starts; negative = never
 * @param rounds how many times the job runs in the same executors (the first one loads the engine)
 * @param killWhenFlushed after the first round, kill one executor JVM once its recording (in this
 *     folder, named {@code *-<pid>.jfr}) has been flushed three more times, then run the job again;
 *     null = never
 */
record Options(
        String master,
        int partitions,
        Path agent,
        Path layout,
        Path appJar,
        long killExecutorAfterMs,
        int rounds,
        Path killWhenFlushed) {

    static final String USAGE = "usage: SparkInference [--master M] [--partitions N] [--agent pools.jar"
            + " [--layout layout.yaml]] [--app-jar spark-app.jar] [--kill-executor-after-ms N] [--rounds N]"
            + " [--kill-executor-when-flushed RECORDINGS-FOLDER]";

    static Options parse(String[] args) {
        Map<String, String> given = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value at '" + args[i] + "'\n" + USAGE);
            }
            given.put(args[i].substring(2), args[i + 1]);
        }
        Options o = new Options(
                value(given, "master", "local-cluster[2,1,1024]"),
                Integer.parseInt(value(given, "partitions", "12")),
                path(value(given, "agent", null)),
                path(value(given, "layout", null)),
                path(value(given, "app-jar", null)),
                Long.parseLong(value(given, "kill-executor-after-ms", "-1")),
                Integer.parseInt(value(given, "rounds", "1")),
                path(value(given, "kill-executor-when-flushed", null)));
        if (!given.isEmpty()) {
            throw new IllegalArgumentException(
                    "unknown option --" + given.keySet().iterator().next() + "\n" + USAGE);
        }
        if (o.layout != null && o.agent == null) {
            throw new IllegalArgumentException("--layout needs --agent\n" + USAGE);
        }
        return o;
    }

    /** The number of executors a {@code local-cluster[workers,cores,memory]} master starts, or 0 for another master. */
    int expectedExecutors() {
        if (!master.startsWith("local-cluster[")) {
            return 0;
        }
        return Integer.parseInt(
                master.substring("local-cluster[".length(), master.indexOf(',')).strip());
    }

    private static String value(Map<String, String> given, String name, String otherwise) {
        String v = given.remove(name);
        return v != null ? v : System.getProperty("pools.spark." + name, otherwise);
    }

    private static Path path(String value) {
        return value == null ? null : Path.of(value).toAbsolutePath().normalize();
    }
}
