package dev.pools.hosts.it.apps;

import ai.djl.inference.Predictor;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.repository.zoo.Criteria;
import ai.djl.repository.zoo.ZooModel;
import ai.djl.translate.NoopTranslator;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession.Result;
import java.lang.ref.Reference;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * An ONNX Runtime session over a tiny Add model that this program writes, fed tensors made from
 * heap buffers (so ONNX Runtime copies them into direct buffers of its own: those copies are what
 * the pools serve). Argument {@code raw}: the ONNX Runtime Java API; {@code djl}: through DJL's
 * OnnxRuntime engine; {@code ownership}: the cases where a tensor's buffer is not only the tensor's
 * (a caller's own direct buffer under several tensors, a buffer handed out by getBufferRef, a
 * second close); {@code alias}: a session whose output is its input's memory.
 */
public final class OrtSession {

    public static void main(String[] args) throws Exception {
        Path model = Path.of("add.onnx");
        Files.write(model, OnnxModels.add(2, 3));
        float[] a = {1, 2, 3, 4, 5, 6};
        float[] b = {10, 20, 30, 40, 50, 60};
        if (args[0].equals("raw")) {
            raw(model, a, b);
        } else if (args[0].equals("alias")) {
            alias(a);
        } else if (args[0].equals("ownership")) {
            ownership(model, a, b);
        } else {
            djl(model, a, b);
        }
        Probe.print("drained-ms", Probe.drain());
        Probe.printUsage("usage-end");
    }

    private static void raw(Path model, float[] a, float[] b) throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (ai.onnxruntime.OrtSession session = env.createSession(model.toString())) {
            for (int round = 0; round < 3; round++) {
                OnnxTensor ta = OnnxTensor.createTensor(env, FloatBuffer.wrap(a), new long[] {2, 3});
                OnnxTensor tb = OnnxTensor.createTensor(env, FloatBuffer.wrap(b), new long[] {2, 3});
                Buffer copy =
                        (Buffer) Probe.field(ta, "buffer"); // read as a debugger would: getBufferRef would share it
                Probe.print("pooled-input", Probe.pooled(copy));
                try (Result r = session.run(Map.of("A", ta, "B", tb))) {
                    float[][] y = (float[][]) r.get(0).getValue();
                    Probe.print("result", Arrays.deepToString(y));
                }
                Probe.printUsage("usage-live");
                ta.close();
                tb.close();
                Probe.printUsage("usage-after-close");
                // Reachable until here: what usage-after-close shows is the close's doing, not the collector's.
                Reference.reachabilityFence(ta);
                Reference.reachabilityFence(tb);
            }
        }
    }

    /**
     * A session whose output is its input: the output holds the input tensor's memory, and reads it
     * after the input tensor is closed and another tensor of the same size is made.
     */
    private static void alias(float[] a) throws Exception {
        Path model = Path.of("pass-through.onnx");
        Files.write(model, OnnxModels.passThrough(2, 3));
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (ai.onnxruntime.OrtSession session = env.createSession(model.toString())) {
            OnnxTensor in = OnnxTensor.createTensor(env, FloatBuffer.wrap(a), new long[] {2, 3});
            Probe.print("pooled-input", Probe.pooled((Buffer) Probe.field(in, "buffer")));
            try (Result r = session.run(Map.of("A", in))) {
                in.close();
                float[] other = {-7, -7, -7, -7, -7, -7};
                try (OnnxTensor next = OnnxTensor.createTensor(env, FloatBuffer.wrap(other), new long[] {2, 3})) {
                    Probe.print("pooled-next", Probe.pooled((Buffer) Probe.field(next, "buffer")));
                    Probe.print("output-after-input-closed", Arrays.deepToString((float[][])
                            r.get(0).getValue()));
                }
            }
        }
    }

    private static void ownership(Path model, float[] a, float[] b) throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (ai.onnxruntime.OrtSession session = env.createSession(model.toString());
                NDManager manager = NDManager.newBaseManager("PyTorch")) {
            // A caller's direct buffer (pool memory: DJL's allocateDirect is intercepted) under two
            // tensors in turn, rewritten between them: the tensor does not own it, close keeps it.
            ByteBuffer mine = manager.allocateDirect(6 * 4).order(ByteOrder.nativeOrder());
            Probe.print("pooled-caller-buffer", Probe.pooled(mine));
            OnnxTensor tb = OnnxTensor.createTensor(env, FloatBuffer.wrap(b), new long[] {2, 3});
            for (int round = 0; round < 2; round++) {
                mine.asFloatBuffer().put(a).flip();
                OnnxTensor ta = OnnxTensor.createTensor(env, mine.asFloatBuffer(), new long[] {2, 3});
                Probe.print("owns-caller-buffer", ta.ownsBuffer());
                ta.close();
                Probe.print("caller-buffer-live-after-close", Probe.pooled(mine));
                OnnxTensor again = OnnxTensor.createTensor(env, mine.asFloatBuffer(), new long[] {2, 3});
                try (Result r = session.run(Map.of("A", again, "B", tb))) {
                    Probe.print(
                            "result", Arrays.deepToString((float[][]) r.get(0).getValue()));
                }
                again.close();
            }
            tb.close();

            // A buffer the tensor owns, handed out by getBufferRef: the view outlives close.
            OnnxTensor shared = OnnxTensor.createTensor(env, FloatBuffer.wrap(a), new long[] {2, 3});
            FloatBuffer view = (FloatBuffer) shared.getBufferRef().orElseThrow();
            shared.close();
            float[] read = new float[6];
            view.get(read);
            Probe.print("view-after-close", Arrays.toString(read));
            Probe.print("view-live-after-close", Probe.pooled(view));

            // An owned buffer never handed out goes back at close; asked for after that, there is none.
            OnnxTensor owned = OnnxTensor.createTensor(env, FloatBuffer.wrap(a), new long[] {2, 3});
            Buffer inside = (Buffer) Probe.field(owned, "buffer");
            owned.close();
            Probe.print("owned-live-after-close", Probe.pooled(inside));
            Probe.print("buffer-ref-after-close", owned.getBufferRef().isPresent());
            owned.close(); // a second close: nothing more happens
            Probe.print("double-releases", Probe.doubleReleases());
        }
    }

    private static void djl(Path model, float[] a, float[] b) throws Exception {
        Criteria<NDList, NDList> criteria = Criteria.builder()
                .setTypes(NDList.class, NDList.class)
                .optEngine("OnnxRuntime")
                .optModelPath(model)
                .optTranslator(new NoopTranslator())
                .build();
        try (ZooModel<NDList, NDList> zoo = criteria.loadModel();
                Predictor<NDList, NDList> predictor = zoo.newPredictor();
                NDManager manager = NDManager.newBaseManager("OnnxRuntime")) {
            for (int round = 0; round < 3; round++) {
                try (NDManager step = manager.newSubManager()) {
                    NDList in = new NDList(step.create(a, new Shape(2, 3)), step.create(b, new Shape(2, 3)));
                    in.get(0).setName("A");
                    in.get(1).setName("B");
                    NDList out = predictor.predict(in);
                    Probe.print("result", Arrays.toString(out.get(0).toFloatArray()));
                    Probe.printUsage("usage-live");
                }
                Probe.printUsage("usage-after-close");
            }
        }
    }
}
