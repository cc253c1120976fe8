package dev.pools.recording;

import dev.pools.log.Log;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

/**
 * Where the recording lives while the JVM runs: JFR writes it to its repository, a folder of chunk
 * files flushed about once a second, and copies it to {@code report.file} only when the JVM exits.
 * A JVM killed with SIGKILL (a container over its memory limit, an executor killed by its cluster
 * manager) never makes that copy. So the agent moves the repository beside the recording, to
 * {@code <report.file>.d}, where {@code report} and {@code suggest} find what was flushed before
 * the kill. After a clean exit JFR empties it and the agent removes the folder.
 *
 * <p>The repository is the JVM's, not the recording's: it is moved only when nobody else uses it,
 * that is when no other recording is running and no repository was chosen on the command line.
 */
public final class RecordingRepository {

    /** The suffix of the folder that holds a running recording's chunks. */
    public static final String SUFFIX = ".d";

    /** How long the shutdown hook waits for JFR to empty the folder before removing it. */
    private static final long CLEANUP_WAIT_MILLIS = 2_000;

    private static volatile Path moved;

    private RecordingRepository() {}

    /** The folder of chunk files that stands for {@code recording} while its JVM runs. */
    public static Path folderOf(Path recording) {
        return recording.resolveSibling(recording.getFileName() + SUFFIX);
    }

    /**
     * Moves JFR's repository to {@link #folderOf}{@code (recording)}, unless another recording or a
     * repository option is in use; says once why not. Called before the recording starts.
     */
    static void moveBeside(Path recording, Recording ours) {
        String reason = reasonToKeep(ours);
        if (reason != null) {
            Log.info("the recording's data stays in JFR's own repository until exit (" + reason
                    + "); a JVM killed with SIGKILL leaves it there, not beside " + recording);
            return;
        }
        Path folder = folderOf(recording).toAbsolutePath();
        try {
            Files.createDirectories(folder);
            if (!migrateDirectly(folder)) {
                ManagementFactory.getPlatformMBeanServer()
                        .invoke(
                                new ObjectName("com.sun.management:type=DiagnosticCommand"),
                                "jfrConfigure",
                                new Object[] {new String[] {"repositorypath=" + folder}},
                                new String[] {String[].class.getName()});
            }
            moved = folder;
        } catch (Exception | LinkageError e) {
            Log.once(
                    "repository",
                    "could not move JFR's repository beside the recording (" + e
                            + "); a JVM killed with SIGKILL leaves its data in JFR's default repository");
        }
    }

    /**
     * Moves the repository as {@code jcmd JFR.configure repositorypath=...} does, through JFR's own
     * recorder ({@code PlatformRecorder.migrate}, which takes a {@code Path} on recent JDKs and JFR's
     * {@code SafePath} on JDK 17): the diagnostic command would need the platform MBean server, whose
     * creation costs a JVM a quarter of a second of CPU and about 20 MiB, and on JDK 25 more. False,
     * with nothing changed, when those internals are out of reach (the agent exports them at start).
     */
    private static boolean migrateDirectly(Path folder) throws Exception {
        Object recorder;
        Method migrate = null;
        try {
            Class<?> access = Class.forName("jdk.jfr.internal.PrivateAccess");
            recorder = access.getMethod("getPlatformRecorder")
                    .invoke(access.getMethod("getInstance").invoke(null));
            for (Method m : recorder.getClass().getMethods()) {
                if (m.getName().equals("migrate") && m.getParameterCount() == 1) {
                    migrate = m;
                }
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return false;
        }
        if (migrate == null) {
            return false;
        }
        Class<?> type = migrate.getParameterTypes()[0];
        Object where;
        try {
            where = type == Path.class
                    ? folder
                    : type.getConstructor(Path.class).newInstance(folder);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
        try {
            migrate.invoke(recorder, where);
        } catch (IllegalAccessException e) {
            return false;
        } catch (InvocationTargetException e) {
            // JFR refused the folder: say why, as the diagnostic command would.
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
        return true;
    }

    private static String reasonToKeep(Recording ours) {
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("-XX:FlightRecorderOptions") && arg.contains("repository=")) {
                return "a repository is set by -XX:FlightRecorderOptions";
            }
        }
        for (Recording r : FlightRecorder.getFlightRecorder().getRecordings()) {
            if (r != ours && r.getState() == RecordingState.RUNNING) {
                return "another recording is running";
            }
        }
        return null;
    }

    /**
     * At exit: once JFR has copied the recording and emptied the repository (its own shutdown hook
     * runs beside this one), removes the folder. Waits at most {@value #CLEANUP_WAIT_MILLIS} ms; a
     * folder that still holds anything is left alone.
     */
    static void removeWhenEmpty() {
        Path folder = moved;
        if (folder == null) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLEANUP_WAIT_MILLIS);
        try {
            while (!isEmpty(folder)) {
                if (System.nanoTime() > deadline) {
                    return;
                }
                Thread.sleep(20);
            }
            Files.deleteIfExists(folder);
        } catch (IOException e) {
            // Left in place: report and suggest ignore an empty folder.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean isEmpty(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) {
            return true;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            return !entries.iterator().hasNext();
        }
    }
}
