package dev.pools.hosts.djl;

import dev.pools.hosts.HostClass;
import java.util.List;

/**
 * Deep Java Library. Its engines ask for direct memory through {@code ByteBuffer.allocateDirect}
 * (in {@code BaseNDManager.allocateDirect} and the engines' own managers), which the call-site
 * rewriting routes to the pools for every engine.
 *
 * <p><b>No release at close.</b> A PyTorch tensor made from Java data is {@code torch::from_blob}
 * over the pool buffer, with no deleter: libtorch never tells Java when it stops using that memory,
 * and it often goes on after {@code PtNDArray.close()} deletes the Java side's handle. A view
 * ({@code reshape}, slicing, {@code detach}), a sparse tensor ({@code createCoo}) or a tensor autograd
 * saved for backward (DJL's scalar operations close their scalar right after using it) all share
 * the storage. DJL keeps the buffer reachable from {@code PtNDArray.dataRef} only until close;
 * releasing it then would hand memory still in use to the next tensor. So no DJL class gets a
 * release hook: its buffers go back when the collector finds them unreachable, as in DJL without
 * the agent. The ONNX Runtime engine's tensors are {@code OnnxTensor}s over DJL's own direct
 * buffers, which the tensor does not own (see the onnxruntime folder): collector too.
 *
 * <p><b>Buffers native code makes.</b> {@code toByteBuffer(true)} returns a buffer libtorch makes over
 * the tensor's memory, which does not keep the pool buffer the tensor was made from; in every release
 * mode it is replaced by a view of that buffer ({@link PtBuffers}). What libtorch itself still holds
 * once the array is collected (a view made by {@code reshape} or {@code get}, autograd's saved
 * tensors) has no Java object to hold the memory, as in DJL without the agent, where the JDK hands
 * that memory back to {@code malloc}.
 */
public final class Djl {

    /** The framework's root package. */
    public static final String PACKAGE = "ai.djl";

    private static final HostClass.Field DATA_REF = new HostClass.Field("dataRef", "Ljava/nio/ByteBuffer;");

    public static final List<HostClass> CLASSES = List.of(new HostClass(
            "ai/djl/pytorch/engine/PtNDArray",
            List.of(DATA_REF),
            List.of(),
            "libtorch may go on using a tensor's memory after close (views, autograd, sparse tensors)"
                    + " and never says when it stops",
            List.of(new HostClass.ReturnHook(
                    "toByteBuffer(Z)Ljava/nio/ByteBuffer;",
                    List.of(DATA_REF),
                    true,
                    "dev/pools/hosts/djl/PtBuffers",
                    "toByteBuffer",
                    "(Ljava/nio/ByteBuffer;Ljava/nio/ByteBuffer;)Ljava/nio/ByteBuffer;"))));

    private Djl() {}
}
