package dev.pools.hosts.it.apps;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Gradients through DJL's scalar operations on PyTorch. {@code x.mul(2)} makes the scalar 2 as a
 * tensor over a pool buffer and closes it at once, while autograd keeps it for backward; between
 * the forward pass and backward the program makes more arrays, which would reuse that memory if
 * it had gone back. Prints the gradient of sum(2x + x^2 + x / 4), which is 2 + 2x + 1/4.
 *
 * <p>Arguments: none, the forward pass and 50 small arrays before backward; {@code fill N}, N
 * arrays of 8 KiB kept until backward, with a scalar operation beside each (a capped layout fills
 * and the pools collect between the forward pass and backward); {@code two N}, two graphs built
 * before their backward passes, with N such arrays between the passes; {@code steps N}, one
 * collector for N steps of forward and backward over an input of 8 KiB closed after each step, then
 * the pools' usage while the collector is still open; {@code limit N M}, one collector open while N
 * arrays of M MiB are made and closed.
 */
public final class DjlGradients {

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "small";
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
            NDArray x = manager.create(new float[] {1, 2, 3});
            x.setRequiresGradient(true);
            if (mode.equals("steps")) {
                steps(manager, x, n);
            } else if (mode.equals("limit")) {
                nearTheLimit(manager, x, n, Integer.parseInt(args[2]));
            } else if (mode.equals("two")) {
                twoGraphs(manager, x, n);
            } else {
                List<NDArray> kept = new ArrayList<>();
                try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
                    NDArray y = x.mul(2).add(x.pow(2)).add(x.div(4)).sum();
                    for (int i = 0; i < n; i++) {
                        if (mode.equals("fill")) {
                            kept.add(manager.create(new float[2048], new Shape(2048)));
                        }
                        manager.create(new float[] {7, 7, 7, 7}, new Shape(4)).add(1);
                    }
                    collector.backward(y);
                }
                Probe.print("gradient", Arrays.toString(x.getGradient().toFloatArray()));
                Probe.print("pools-collections", Probe.collections());
                kept.forEach(NDArray::close);
            }
        }
        Probe.print("drained-ms", Probe.drain());
        Probe.printUsage("usage-end");
    }

    /**
     * Two graphs built in one collector before either backward pass: sum(5x), then sum(3x + x / 4).
     * Between the two passes the program makes N arrays of 8 KiB. The gradient is 5 + 3 + 1/4.
     */
    private static void twoGraphs(NDManager manager, NDArray x, int n) throws Exception {
        List<NDArray> kept = new ArrayList<>();
        try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
            NDArray y1 = x.mul(5).sum();
            NDArray y2 = x.mul(3).add(x.div(4)).sum();
            collector.backward(y1);
            for (int i = 0; i < n; i++) {
                kept.add(manager.create(new float[2048], new Shape(2048)));
                manager.create(new float[] {7, 7, 7, 7}, new Shape(4)).add(1);
            }
            collector.backward(y2);
        }
        Probe.print("gradient", Arrays.toString(x.getGradient().toFloatArray()));
        Probe.print("pools-collections", Probe.collections());
        kept.forEach(NDArray::close);
    }

    /**
     * One collector open while N arrays of M MiB are made from Java data and closed, more than the
     * direct memory limit holds at once; then a backward pass of sum(2x), whose gradient is 2.
     */
    private static void nearTheLimit(NDManager manager, NDArray x, int n, int mib) throws Exception {
        try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
            for (int i = 0; i < n; i++) {
                try (NDArray input = manager.create(new float[mib << 18], new Shape(mib << 18))) {
                    input.sum().close();
                }
            }
            collector.backward(x.mul(2).sum());
        }
        Probe.print("gradient", Arrays.toString(x.getGradient().toFloatArray()));
    }

    /** N steps in one collector; each input is closed after its backward. */
    private static void steps(NDManager manager, NDArray x, int n) throws Exception {
        try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
            for (int i = 0; i < n; i++) {
                float[] data = new float[2048];
                Arrays.fill(data, i);
                try (NDArray input = manager.create(data, new Shape(2048))) {
                    NDArray y = x.mul(2).sum().add(input.sum());
                    collector.backward(y);
                    y.close();
                }
            }
            Probe.print("gradient", Arrays.toString(x.getGradient().toFloatArray()));
            Probe.print("drained-open-ms", Probe.drainTo(2L * n + 1));
            Probe.printUsage("usage-open");
        }
    }
}
