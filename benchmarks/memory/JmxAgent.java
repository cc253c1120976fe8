package jmx;

import java.lang.instrument.Instrumentation;
import java.lang.management.ManagementFactory;

/** B3 and B6 memory, "JMX alone": starts the platform MBean server on a daemon thread, as pools.jar does in the background. */
public final class JmxAgent {
    public static void premain(String args, Instrumentation inst) {
        Thread t = new Thread("jmx-start") {
            @Override
            public void run() {
                ManagementFactory.getPlatformMBeanServer();
            }
        };
        t.setDaemon(true);
        t.start();
    }
}
