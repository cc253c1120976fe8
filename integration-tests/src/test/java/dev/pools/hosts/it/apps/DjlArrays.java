package dev.pools.hosts.it.apps;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.ByteBuffer;

/**
 * Arrays made from Java data on DJL's PyTorch engine (argument {@code with-2d} or {@code without-2d}:
 * whether to use a 2-D creator, and a row count). Prints a hash of every result (compared
 * with a run without the agent), whether each array's memory is pool memory, and the usage before
 * and after the arrays are closed.
 */
public final class DjlArrays {

    public static void main(String[] args) throws Exception {
        boolean twoD = args.length == 0 || args[0].equals("with-2d");
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 32;
        int cols = 64;
        float[][] grid = new float[rows][cols];
        float[] flat = new float[rows * cols];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                grid[i][j] = (float) Math.sin(i * 31 + j) * 3;
                flat[i * cols + j] = (i - j) / 7f;
            }
        }
        Probe.printUsage("usage-start");
        NDManager manager = NDManager.newBaseManager("PyTorch");
        // The 2-D creators copy through a temporary direct buffer that no array keeps.
        NDArray fromGrid = twoD
                ? manager.create(grid)
                : manager.create(flat, new Shape(rows, cols)).mul(3);
        NDArray fromFlat = manager.create(flat, new Shape(rows, cols));
        NDArray zeros = manager.zeros(new Shape(rows, cols));
        NDArray ones = manager.ones(new Shape(rows, cols));
        NDArray wide = fromGrid.toType(DataType.FLOAT64, true);
        NDArray decoded = NDArray.decode(manager, fromGrid.encode());
        ByteBuffer direct = manager.allocateDirect(rows * cols * 4);
        direct.asFloatBuffer().put(flat);
        NDArray fromDirect = manager.create(direct, new Shape(rows, cols), DataType.FLOAT32);
        NDArray product = fromGrid.matMul(fromFlat.transpose()).add(ones.sum());

        Probe.print("result-grid", Probe.hash(fromGrid.toFloatArray()));
        Probe.print("result-flat", Probe.hash(fromFlat.toFloatArray()));
        Probe.print("result-wide", Probe.hash(wide.toDoubleArray()));
        Probe.print("result-decoded", Probe.hash(decoded.toFloatArray()));
        Probe.print("result-direct", Probe.hash(fromDirect.toFloatArray()));
        Probe.print("result-product", Probe.hash(product.toFloatArray()));
        float zeroSum = 0;
        for (float f : zeros.toFloatArray()) {
            zeroSum += Math.abs(f);
        }
        Probe.print("zeros-abs-sum", zeroSum);
        Probe.print("pooled-grid", Probe.pooled((ByteBuffer) Probe.field(fromGrid, "dataRef")));
        Probe.print("pooled-flat", Probe.pooled((ByteBuffer) Probe.field(fromFlat, "dataRef")));
        Probe.print("pooled-decoded", Probe.pooled((ByteBuffer) Probe.field(decoded, "dataRef")));
        Probe.print("pooled-direct", Probe.pooled((ByteBuffer) Probe.field(fromDirect, "dataRef")));
        Probe.printUsage("usage-live");

        manager.close();
        fromGrid = fromFlat = zeros = ones = wide = decoded = fromDirect = product = null;
        direct = null;
        long releasedBefore = Probe.collectorReleases();
        Probe.printUsage("usage-after-close");
        Probe.print("collector-releases-at-close", Probe.collectorReleases() - releasedBefore);
        Probe.print("drained-ms", Probe.drain());
        Probe.printUsage("usage-end");
    }
}
