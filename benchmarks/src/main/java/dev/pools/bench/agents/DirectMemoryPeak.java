package dev.pools.bench.agents;

import java.lang.instrument.Instrumentation;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/**
 * B3's meter: samples the JDK's "direct" buffer pool every millisecond and prints the most it held
 * when the JVM exits ({@code direct-peak <bytes>} on stderr). Pool pages come from
 * {@code allocateDirect} too, so this counts the same memory with and without pools.
 */
public final class DirectMemoryPeak {

    private static volatile long peak;

    private DirectMemoryPeak() {}

    public static void premain(String args, Instrumentation inst) {
        Thread sampler = new Thread(DirectMemoryPeak::sample, "direct-memory-peak");
        sampler.setDaemon(true);
        sampler.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.err.println("direct-peak " + peak)));
    }

    private static void sample() {
        BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct"))
                .findFirst()
                .orElseThrow();
        while (true) {
            peak = Math.max(peak, direct.getMemoryUsed());
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
