package dev.pools.hosts.onnxruntime;

import dev.pools.hosts.HostClass;
import java.util.List;

/**
 * ONNX Runtime's Java API. {@code OrtUtil} copies Java arrays and heap buffers into direct buffers
 * it asks {@code ByteBuffer.allocateDirect} for; the call-site rewriting routes those to the pools.
 *
 * <p><b>No release at close.</b> {@code OnnxTensor.ownsBuffer} says only that no other Java code
 * holds the tensor's buffer. The native value over it is made with the buffer's address and no
 * copy, and ONNX Runtime may give a session's output that same memory: a graph output that is one of
 * its inputs, or an operator that aliases its input (Reshape, Squeeze, Flatten may). Such an output
 * outlives {@code OnnxTensor.close()}, which tells nobody; releasing the buffer then handed the
 * output's memory to the next tensor (a pass-through model's output read the next tensor's data).
 * So {@code OnnxTensor} gets no release hook: its buffers go back when the collector finds them
 * unreachable, as in ONNX Runtime without the agent. A session that copies every output is not told
 * apart from one that does not, nor a model from another.
 */
public final class OnnxRuntime {

    /** The framework's root package. */
    public static final String PACKAGE = "ai.onnxruntime";

    public static final List<HostClass> CLASSES = List.of(new HostClass(
            "ai/onnxruntime/OnnxTensor",
            List.of(),
            List.of(),
            "a session's output may share an input tensor's memory (a graph output that is an input,"
                    + " an aliasing operator such as Reshape) and outlive the tensor's close"));

    private OnnxRuntime() {}
}
