package dev.pools.cli;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import dev.pools.agent.PoolsAgent;
import dev.pools.layout.LayoutException;
import dev.pools.layout.LayoutFile;
import dev.pools.layout.Layouts;
import dev.pools.memory.DirectMemory;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code attach PID [LAYOUT]}: loads this jar as the agent of a running JVM (the Attach API), after
 * checking the layout here, so that a bad layout is one line and exit status 2 on the caller's side,
 * not a refusal printed in the other JVM. The layout's path is made absolute: the other JVM resolves it
 * from its own working directory otherwise. Says whether the agent runs there, with which layout.
 */
@Command(
        name = "attach",
        mixinStandardHelpOptions = true,
        description = "Loads pools.jar as the agent of a running JVM (same user; on JDK 21 and later, start it with"
                + " -XX:+EnableDynamicAgentLoading to attach without a warning). The layout is checked here"
                + " first; without one, the default layout.")
final class AttachCommand implements Callable<Integer> {

    /** The longest argument the JVM's attach protocol takes, in bytes (JDK 17's {@code attachListener}). */
    static final int MAX_ARGUMENT = 1024;

    @Parameters(index = "0", paramLabel = "PID", description = "The process id of the JVM.")
    long pid;

    @Parameters(index = "1", arity = "0..1", paramLabel = "LAYOUT", description = "The layout file (YAML).")
    Path layout;

    @Override
    public Integer call() throws IOException {
        String args = "";
        if (layout != null) {
            try {
                LayoutFile.read(layout, Layouts.defaultMaxPageSize(DirectMemory.limit()));
            } catch (LayoutException e) {
                throw new BadInput(e.getMessage());
            }
            args = layout.toAbsolutePath().normalize().toString();
        }
        Path jar = ownJar();
        // The JVM's attach protocol takes an argument of at most 1024 bytes (JDK 17); a longer one
        // breaks the connection instead of being refused.
        int argument = (jar + "=" + args).getBytes(StandardCharsets.UTF_8).length;
        if (argument > MAX_ARGUMENT) {
            throw new BadInput("cannot attach: the path of pools.jar and of the layout take " + argument
                    + " bytes, more than the " + MAX_ARGUMENT + " the JVM's attach takes; use shorter paths"
                    + " (a symbolic link, say)");
        }
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException | IOException e) {
            throw new BadInput("cannot attach to " + pid + ": " + e.getMessage()
                    + " (a JVM of the same user, not started with -XX:+DisableAttachMechanism)");
        }
        try {
            return load(vm, jar, args);
        } catch (IOException e) {
            throw new BadInput("lost the connection to " + pid + " while attaching: " + e.getMessage());
        } finally {
            try {
                vm.detach();
            } catch (IOException e) {
                // Gone already: nothing to let go of.
            }
        }
    }

    private Integer load(VirtualMachine vm, Path jar, String args) throws IOException {
        String running = vm.getSystemProperties().getProperty(PoolsAgent.RUNNING_PROPERTY);
        if (running != null) {
            throw new BadInput(pid + " runs the pools agent already, with layout " + running
                    + "; it stays (MemoryPools.install changes the layout in force)");
        }
        try {
            vm.loadAgent(jar.toString(), args);
        } catch (AgentLoadException | AgentInitializationException e) {
            String refused = vm.getSystemProperties().getProperty(PoolsAgent.REFUSED_PROPERTY);
            throw new BadInput(pid + " did not start the agent: " + (refused != null ? refused : e.getMessage()));
        }
        running = vm.getSystemProperties().getProperty(PoolsAgent.RUNNING_PROPERTY);
        if (running == null) {
            throw new BadInput(pid + " loaded the agent, which did not start (its standard error says why)");
        }
        System.out.println("pools: attached to " + pid + ", layout " + running);
        return ExitStatus.DONE;
    }

    /** This jar, which the other JVM loads. */
    private static Path ownJar() {
        try {
            Path jar = Path.of(AttachCommand.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            if (!Files.isRegularFile(jar)) {
                throw new BadInput("attach runs from pools.jar (java -jar pools.jar attach ...), not from " + jar);
            }
            return jar;
        } catch (URISyntaxException | RuntimeException e) {
            if (e instanceof BadInput b) {
                throw b;
            }
            throw new BadInput("cannot tell where pools.jar is: " + e);
        }
    }
}
