package dev.pools.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.tools.attach.VirtualMachine;
import dev.pools.it.apps.LazyMBeanApp;
import dev.pools.it.apps.MBeanApp;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** pools:type=MemoryPools, read and operated through a JMX connector as jconsole would, agrees with the API. */
class MBeanIT {

    @TempDir
    Path dir;

    private BufferedReader out;
    private Writer in;

    private List<String> command(String c) throws Exception {
        in.write(c + "\n");
        in.flush();
        List<String> lines = new ArrayList<>();
        String line;
        while ((line = out.readLine()) != null && !line.equals("done")) {
            lines.add(line);
        }
        return lines;
    }

    private static String report(CompositeData d) {
        return "api-report " + d.get("pageSize") + " " + d.get("pages") + " " + d.get("pagesPeak") + " "
                + d.get("largestAlloc");
    }

    @Test
    void the_mbean_agrees_with_the_api_and_refuses_a_bad_install_with_the_reason() throws Exception {
        Files.writeString(dir.resolve("layout.yaml"), """
                layout: sliced
                pools:
                  - page_size: 64 KiB
                  - page_size: 1 MiB
                intercept:
                  packages: [it.host]
                report:
                  file: none
                """);
        List<String> cmd = List.of(
                Forked.java(),
                Forked.agent(Path.of("layout.yaml")),
                "-XX:+EnableDynamicAgentLoading",
                "-cp",
                Forked.TEST_CLASSES.toString(),
                MBeanApp.class.getName());
        Process p = new ProcessBuilder(cmd)
                .directory(dir.toFile())
                .redirectError(dir.resolve("err.txt").toFile())
                .start();
        out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        in = p.outputWriter();
        String ready = out.readLine();
        assertTrue(ready != null && ready.startsWith("ready "), ready + Files.readString(dir.resolve("err.txt")));
        VirtualMachine vm = VirtualMachine.attach(ready.substring(6));
        String url = vm.startLocalManagementAgent();
        vm.detach();
        try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(url))) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            ObjectName name = new ObjectName("pools:type=MemoryPools");
            for (int i = 0;
                    i < 400 && !server.isRegistered(name);
                    i++) { // it appears once the agent's background start is done
                Thread.sleep(50);
            }
            List<String> api = command("api");
            CompositeData[] reports = (CompositeData[]) server.getAttribute(name, "Reports");
            CompositeData usage = (CompositeData) server.getAttribute(name, "Usage");
            List<String> viaJmx = new ArrayList<>();
            for (CompositeData r : reports) {
                viaJmx.add(report(r));
            }
            viaJmx.add("api-usage " + usage.get("numberAllocs") + " " + usage.get("bytesInUse") + " "
                    + usage.get("bytesPadding") + " " + usage.get("bytesReserved"));
            assertEquals(api, viaJmx);
            assertTrue(((String) server.getAttribute(name, "Layout")).contains("page_size: 64 KiB"));

            Exception bad = assertThrows(
                    Exception.class,
                    () -> server.invoke(
                            name,
                            "install",
                            new Object[] {"layout: sliced\npools:\n  - page_size: 1 MiB\n    max_slice: 4 MiB\n"},
                            new String[] {"java.lang.String"}));
            assertTrue(
                    String.valueOf(rootMessage(bad))
                            .contains(
                                    "INVALID_LAYOUT: install:4: pools[0].max_slice (4 MiB) is larger than its page_size (1 MiB)"),
                    rootMessage(bad));
            // A client may send null: one line too, not a NullPointerException (a review).
            Exception none = assertThrows(
                    Exception.class,
                    () -> server.invoke(name, "install", new Object[] {null}, new String[] {"java.lang.String"}));
            assertEquals(
                    "INVALID_LAYOUT: install: no layout given (null); give the layout's YAML text", rootMessage(none));
            Exception busy = assertThrows(
                    Exception.class,
                    () -> server.invoke(
                            name, "install", new Object[] {"layout: direct\n"}, new String[] {"java.lang.String"}));
            assertTrue(
                    rootMessage(busy).startsWith("POOLS_IN_USE: 150000 B still live in the pools"), rootMessage(busy));
            Exception startOnly = assertThrows(
                    Exception.class,
                    () -> server.invoke(
                            name, "install", new Object[] {"layout: direct\nrelease: close\n"}, new String[] {
                                "java.lang.String"
                            }));
            assertTrue(rootMessage(startOnly).contains("release is set at start-up only"), rootMessage(startOnly));

            assertEquals(List.of("freed"), command("free"));
            server.invoke(name, "cleanup", new Object[0], new String[0]);
            server.invoke(name, "install", new Object[] {"layout: direct\n"}, new String[] {"java.lang.String"});
            assertTrue(((String) server.getAttribute(name, "Layout")).startsWith("layout: direct\n"));
            CompositeData[] after = (CompositeData[]) server.getAttribute(name, "Reports");
            assertEquals(1, after.length);
            assertEquals(List.of("api-report 0 0 0 0", "api-usage 0 0 0 0"), command("api"));
            assertEquals("api-report 0 0 0 0", report(after[0]));
        }
        command("quit");
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
    }

    /**
     * The agent does not create the platform MBean server (a quarter of a second of CPU and about
     * 20 MiB for the JVM, more on JDK 25); its MBean appears in it once the application creates it.
     * Recording on: moving JFR's repository does not create it either.
     */
    @Test
    void the_mbean_joins_the_platform_server_when_the_application_creates_it() throws Exception {
        Forked.Result r = Forked.app(dir, List.of(Forked.agent(null)), LazyMBeanApp.class);
        assertEquals(0, r.exit(), r.toString());
        assertEquals(
                List.of("poller true", "servers 0", "registered true", "layout layout: host"),
                r.out().lines().toList(),
                r.toString());
        assertTrue(
                Files.list(dir).anyMatch(f -> f.getFileName().toString().matches("pools-\\d+\\.jfr")),
                "the recording was written");
    }

    private static String rootMessage(Throwable t) {
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }
}
