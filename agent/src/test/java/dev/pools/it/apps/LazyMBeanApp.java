package dev.pools.it.apps;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;

/**
 * Under the agent (recording on): waits until the agent's background start is over (its
 * {@code pools-jmx} thread, started last, runs), prints how many MBean servers exist then, creates
 * the platform MBean server as any JMX user would, and prints whether the agent's MBean appeared in
 * it and how its layout reads.
 */
public final class LazyMBeanApp {

    private LazyMBeanApp() {}

    private static boolean pollerRuns() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("pools-jmx"));
    }

    public static void main(String[] args) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!pollerRuns() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        System.out.println("poller " + pollerRuns());
        System.out.println("servers " + MBeanServerFactory.findMBeanServer(null).size());
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("pools:type=MemoryPools");
        while (!server.isRegistered(name) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        System.out.println("registered " + server.isRegistered(name));
        System.out.println("layout "
                + ((String) server.getAttribute(name, "Layout"))
                        .lines()
                        .findFirst()
                        .orElse(""));
    }
}
