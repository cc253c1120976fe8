package dev.pools.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.pools.it.Forked;
import dev.pools.it.Requirements;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.startupcheck.StartupCheckStrategy;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.DockerStatus;

/**
 * The sample app with pools.jar in a container, as orchestrators run it: a memory limit that kills
 * what outgrows it, and {@code docker stop} (SIGTERM) to end it. The image is the JDK 17 image that
 * {@code containers/jdk-image.sh} builds from Debian packages; the jars and layouts are mounted in,
 * and the recording is written to a mounted folder.
 */
class SampleContainerIT {

    static final DockerImageName IMAGE = DockerImageName.parse(System.getProperty("pools.image", "pools-jdk17:local"));
    static final Path TARGET = Path.of(System.getProperty("sample.target"));
    static final Path LAYOUTS = Path.of(System.getProperty("sample.layouts"));

    @TempDir
    Path work;

    @BeforeAll
    static void engineAndImage() {
        Requirements.require(
                DockerClientFactory.instance().isDockerAvailable(), "A Docker engine (containers/docker-start.sh)");
        boolean image;
        try {
            DockerClientFactory.instance()
                    .client()
                    .inspectImageCmd(IMAGE.asCanonicalNameString())
                    .exec();
            image = true;
        } catch (NotFoundException e) {
            image = false;
        }
        Requirements.require(image, "The image " + IMAGE + " (containers/jdk-image.sh)");
    }

    /** Startup is over once the container has exited, whatever its status. */
    static final class Exited extends StartupCheckStrategy {
        @Override
        public StartupStatus checkStartupState(DockerClient client, String containerId) {
            return DockerStatus.isContainerStopped(getCurrentState(client, containerId))
                    ? StartupStatus.SUCCESSFUL
                    : StartupStatus.NOT_YET_KNOWN;
        }
    }

    private GenericContainer<?> sample(long memory, String layout, String... appArgs) throws Exception {
        return withDirectLimit(memory, "4g", layout, appArgs);
    }

    private GenericContainer<?> withDirectLimit(long memory, String maxDirect, String layout, String... appArgs)
            throws Exception {
        Path cache = Files.createDirectories(TARGET.resolve("container-djl-cache"));
        List<String> cmd = new ArrayList<>(List.of(
                "java",
                "-javaagent:/pools/pools.jar=" + layout,
                "-Dai.djl.offline=true",
                "-XX:MaxDirectMemorySize=" + maxDirect,
                "-jar",
                "/app/sample-app.jar"));
        cmd.addAll(List.of(appArgs));
        return new GenericContainer<>(IMAGE)
                .withImagePullPolicy(name -> false)
                .withFileSystemBind(TARGET.toString(), "/app", BindMode.READ_ONLY)
                .withFileSystemBind(Forked.JAR.getParent().toString(), "/pools", BindMode.READ_ONLY)
                .withFileSystemBind(LAYOUTS.toString(), "/layouts", BindMode.READ_ONLY)
                .withFileSystemBind(work.toString(), "/work", BindMode.READ_WRITE)
                .withFileSystemBind(cache.toString(), "/cache", BindMode.READ_WRITE)
                .withEnv("ENGINE_CACHE_DIR", "/cache")
                .withWorkingDirectory("/work")
                .withCreateContainerCmdModifier(c -> c.getHostConfig()
                        .withMemory(memory)
                        .withMemorySwap(memory)
                        .withNetworkMode("none"))
                .withCommand(cmd.toArray(String[]::new));
    }

    private static InspectContainerResponse.ContainerState state(GenericContainer<?> c) {
        return DockerClientFactory.instance()
                .client()
                .inspectContainerCmd(c.getContainerId())
                .exec()
                .getState();
    }

    private Forked.Result report(String recording) throws Exception {
        return Forked.cli(work, "report", recording);
    }

    /**
     * The loop with the limits: measure in a container, let {@code suggest} write the capped layout
     * and the container's memory limit and direct memory limit, then run capped inside exactly those.
     */
    @Test
    void the_capped_layout_runs_to_completion_inside_the_limit_suggest_wrote() throws Exception {
        try (GenericContainer<?> c = sample(768L << 20, "/layouts/measure.yaml")
                .withStartupCheckStrategy(new Exited().withTimeout(Duration.ofMinutes(3)))) {
            c.start();
            assertEquals(0L, state(c).getExitCodeLong(), c.getLogs());
        }
        Forked.Result suggest = Forked.cli(
                work,
                "suggest",
                "measure.jfr",
                "--headroom",
                "25%",
                "--report-file",
                "capped.jfr",
                "-o",
                "capped.yaml");
        assertEquals(0, suggest.exit(), suggest.toString());
        String capped = Files.readString(work.resolve("capped.yaml"));
        Matcher limit =
                Pattern.compile("\n#   container memory limit (\\d+) MiB ").matcher(capped);
        Matcher direct =
                Pattern.compile("\n#   -XX:MaxDirectMemorySize=(\\d+)m ").matcher(capped);
        assertTrue(limit.find() && direct.find(), capped);
        long memory = Long.parseLong(limit.group(1)) << 20;
        assertTrue(memory < 768L << 20, "the measured limit is below the guessed one: " + capped);
        try (GenericContainer<?> c = withDirectLimit(memory, direct.group(1) + "m", "/work/capped.yaml")
                .withStartupCheckStrategy(new Exited().withTimeout(Duration.ofMinutes(3)))) {
            c.start();
            InspectContainerResponse.ContainerState s = state(c);
            String logs = c.getLogs();
            assertEquals(0L, s.getExitCodeLong(), "inside " + limit.group(1) + " MiB: " + logs);
            assertEquals(Boolean.FALSE, s.getOOMKilled());
            assertTrue(logs.contains("accuracy 13.5% -> 94.0%"), logs);
        }
        Forked.Result r = report("capped.jfr");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("fallbacks:         0 (0 B)   refusals: 0"), r.out());
        assertTrue(r.out().contains("ai.djl.pytorch.engine.PtNDManager#allocateDirect"), r.out());
        System.out.println("suggested: -m " + limit.group(1) + "m -XX:MaxDirectMemorySize=" + direct.group(1)
                + "m; the capped run: "
                + r.out()
                        .lines()
                        .filter(l -> l.contains("resident set (RSS)"))
                        .findFirst()
                        .orElse("?"));
    }

    @Test
    void docker_stop_in_the_middle_of_the_workload_leaves_a_complete_recording() throws Exception {
        try (GenericContainer<?> c = sample(768L << 20, "/layouts/capped.yaml", "40")) {
            c.start();
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (!c.getLogs().contains("training epoch 2/40") && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertTrue(c.getLogs().contains("training epoch 2/40"), c.getLogs());
            DockerClientFactory.instance()
                    .client()
                    .stopContainerCmd(c.getContainerId())
                    .withTimeout(20)
                    .exec();
            InspectContainerResponse.ContainerState s = state(c);
            assertEquals(143L, s.getExitCodeLong(), "ended by SIGTERM, not killed: " + c.getLogs());
            assertTrue(!c.getLogs().contains("training epoch 40/40"), "stopped in the middle");
        }
        Forked.Result r = report("capped.jfr");
        assertEquals(0, r.exit(), r.toString());
        // Pool 1's row: cap and peak are whatever the measured run made them (release: gc), the peak within the cap.
        Matcher row = Pattern.compile("\\n\\s+1\\s+sliced\\s+4 MiB\\s+2 MiB\\s+(\\d+)\\s+\\d+\\s+(\\d+)\\s")
                .matcher(r.out());
        assertTrue(row.find(), r.out());
        assertTrue(Integer.parseInt(row.group(2)) <= Integer.parseInt(row.group(1)), r.out());
        assertTrue(r.out().contains("top call sites"), "the end-of-chunk events are there: " + r.out());
    }

    @Test
    void a_leak_without_caps_is_killed_while_with_caps_it_fails_with_the_pools_message() throws Exception {
        try (GenericContainer<?> c = sample(640L << 20, "/layouts/measure.yaml", "1", "leak")
                .withStartupCheckStrategy(new Exited().withTimeout(Duration.ofMinutes(3)))) {
            c.start();
            InspectContainerResponse.ContainerState s = state(c);
            assertEquals(
                    137L,
                    s.getExitCodeLong(),
                    "uncapped, the leak grows until the kernel kills the container: " + c.getLogs());
            assertEquals(Boolean.TRUE, s.getOOMKilled());
            assertTrue(c.getLogs().contains("leak: "), c.getLogs());
        }
        // Killed, the JVM did not end its recording: it holds what the agent had written, up to its last batch.
        Forked.Result killed = report("measure.jfr");
        assertEquals(0, killed.exit(), killed.toString());
        assertTrue(killed.out().contains("recovered from "), killed.out());
        assertTrue(killed.out().contains("resident set (RSS)"), killed.out());
        Files.writeString(
                work.resolve("capped-fail.yaml"),
                Files.readString(LAYOUTS.resolve("capped.yaml"))
                        .replace("on_exhausted: fallback", "on_exhausted: fail"));
        try (GenericContainer<?> c = sample(640L << 20, "/work/capped-fail.yaml", "1", "leak")
                .withStartupCheckStrategy(new Exited().withTimeout(Duration.ofMinutes(3)))) {
            c.start();
            InspectContainerResponse.ContainerState s = state(c);
            String logs = c.getLogs();
            assertEquals(1L, s.getExitCodeLong(), logs);
            assertEquals(Boolean.FALSE, s.getOOMKilled());
            // Pool 1 at its cap, whatever the measured run made the cap (release: gc).
            assertTrue(
                    Pattern.compile(
                                    "java.lang.OutOfMemoryError: pools: cannot serve 1605632 B: every pool that takes 1.5 MiB"
                                            + " \\(1605632 B\\) is full: pool 1 sliced \\(4 MiB pages, slices up to 2 MiB\\): (\\d+)/\\1 pages")
                            .matcher(logs)
                            .find(),
                    logs);
        }
        Forked.Result r = report("capped.jfr");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(
                r.out().contains("(failed): every pool that takes 1.5 MiB"),
                "the refusal is in the recording: " + r.out());
    }
}
