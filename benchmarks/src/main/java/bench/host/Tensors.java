package bench.host;

import java.nio.ByteBuffer;

/** Stands in for a tensor library in the benchmarks: the class the agent instruments ({@code intercept.packages: [bench.host]}). */
public final class Tensors {

    private Tensors() {}

    public static ByteBuffer allocate(int bytes) {
        return ByteBuffer.allocateDirect(bytes);
    }
}
