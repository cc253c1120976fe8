package dev.pools.hosts.it.apps;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import java.util.Arrays;

/**
 * Gradients through DJL's scalar operations on PyTorch. {@code x.mul(2)} makes the scalar 2 as a
 * tensor over a pool buffer and closes it at once, while autograd keeps it for backward; between
 * the forward pass and backward the program makes more arrays, which would reuse that memory if
 * the close had released it. Prints the gradient of sum(2x + x^2 + x / 4), which is 2 + 2x + 1/4.
 */
public final class DjlGradients {

    public static void main(String[] args) throws Exception {
        try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
            NDArray x = manager.create(new float[] {1, 2, 3});
            x.setRequiresGradient(true);
            try (GradientCollector collector = Engine.getInstance().newGradientCollector()) {
                NDArray y = x.mul(2).add(x.pow(2)).add(x.div(4)).sum();
                for (int i = 0; i < 50; i++) {
                    manager.create(new float[] {7, 7, 7, 7}, new Shape(4)).add(1);
                }
                collector.backward(y);
            }
            Probe.print("gradient", Arrays.toString(x.getGradient().toFloatArray()));
        }
        Probe.print("drained-ms", Probe.drain());
        Probe.printUsage("usage-end");
    }
}
