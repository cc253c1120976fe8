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
 * mode it is replaced by a view of that buffer ({@link PtBuffers}), for an array that holds it (its
 * {@code dataRef}): not for a view's ({@code reshape}, {@code get}), which holds none. What libtorch itself still holds
 * once the array is collected (a view made by {@code reshape} or {@code get}, autograd's saved
 * tensors) has no Java object to hold the memory, as in DJL without the agent, where the JDK hands
 * that memory back to {@code malloc}.
 *
 * <p><b>Arrays closed during a gradient collection</b> ({@link PtKeep}). Autograd saves tensors for
 * backward, among them the scalars DJL's scalar operations close right after use; a collection
 * between the forward pass and backward (one the pools make for a capped pool that is full, or the
 * JDK's at its direct memory limit) would hand their memory to the next arrays, and backward would
 * read those. So while a {@code PtGradientCollector} is open, the buffer of an array closed (or given
 * another buffer by {@code set}) is held until the collector closes or is dropped unclosed
 * ({@link PtKeep} has the bounds), or until a request would fail otherwise. This only holds memory
 * longer; it never releases any.
 */
public final class Djl {

    /** The framework's root package. */
    public static final String PACKAGE = "ai.djl";

    private static final HostClass.Field DATA_REF = new HostClass.Field("dataRef", "Ljava/nio/ByteBuffer;");

    private static final String KEEP = "dev/pools/hosts/djl/PtKeep";

    public static final List<HostClass> CLASSES = List.of(
            new HostClass(
                    "ai/djl/pytorch/engine/PtNDArray",
                    List.of(DATA_REF),
                    List.of(),
                    "libtorch may go on using a tensor's memory after close (views, autograd, sparse tensors)"
                            + " and never says when it stops",
                    List.of(
                            new HostClass.MethodHook(
                                    "toByteBuffer(Z)Ljava/nio/ByteBuffer;",
                                    List.of(DATA_REF),
                                    true,
                                    "dev/pools/hosts/djl/PtBuffers",
                                    "toByteBuffer",
                                    "(Ljava/nio/ByteBuffer;Ljava/nio/ByteBuffer;)Ljava/nio/ByteBuffer;"),
                            HostClass.MethodHook.atEntry(
                                    "close()V", List.of(DATA_REF), KEEP, "letGo", "(Ljava/nio/ByteBuffer;)V"),
                            HostClass.MethodHook.atEntry(
                                    "set(Ljava/nio/Buffer;)V",
                                    List.of(DATA_REF),
                                    KEEP,
                                    "letGo",
                                    "(Ljava/nio/ByteBuffer;)V")),
                    "a buffer libtorch makes over pool memory (toByteBuffer(true)) does not keep that memory, and"
                            + " an array closed during a gradient collection does not keep its memory until the collection closes"),
            new HostClass(
                    "ai/djl/pytorch/engine/PtGradientCollector",
                    List.of(HostClass.Field.THIS),
                    List.of(),
                    null,
                    List.of(
                            new HostClass.MethodHook(
                                    "<init>()V",
                                    List.of(HostClass.Field.THIS),
                                    false,
                                    KEEP,
                                    "collecting",
                                    "(Ljava/lang/Object;)V"),
                            new HostClass.MethodHook(
                                    "close()V",
                                    List.of(HostClass.Field.THIS),
                                    false,
                                    KEEP,
                                    "collected",
                                    "(Ljava/lang/Object;)V")),
                    "arrays closed during a gradient collection do not keep their memory until it closes"));

    private Djl() {}
}
