package dev.pools.hosts.it.apps;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Runs DJL before and after an agent is attached to it: prints {@code ready <pid>}, waits for a
 * line on standard input (the test attaches meanwhile), then makes arrays again. Before the attach it
 * has loaded DJL classes with allocation call sites and DJL lambdas (hidden classes).
 */
public final class DjlLateAttach {

    public static void main(String[] args) throws Exception {
        NDManager manager = NDManager.newBaseManager("PyTorch");
        // NDScope's class initializer makes a lambda: a hidden class in DJL's package, loaded before the attach.
        new NDScope().close();
        NDArray before = manager.create(new float[] {1, 2, 3, 4}, new Shape(2, 2));
        System.out.println("agent-before " + agentPresent());
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in)).readLine();
        System.out.println("agent-after " + agentPresent());
        NDArray after = manager.create(new float[] {5, 6, 7, 8}, new Shape(2, 2));
        Probe.print("pooled-before", Probe.pooled((ByteBuffer) Probe.field(before, "dataRef")));
        Probe.print("pooled-after", Probe.pooled((ByteBuffer) Probe.field(after, "dataRef")));
        Probe.print("result", Arrays.toString(before.add(after).toFloatArray()));
        Probe.printUsage("usage-live");
        manager.close();
        before = null;
        after = null;
        Probe.print("drained-ms", Probe.drain());
        Probe.printUsage("usage-end");
    }

    private static boolean agentPresent() {
        try {
            Class.forName("dev.pools.agent.PoolsRuntime");
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
