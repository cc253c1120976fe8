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
import java.nio.Buffer;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * An ONNX Runtime session over a tiny Add model that this program writes, fed tensors made from
 * heap buffers (so ONNX Runtime copies them into direct buffers of its own: those copies are what
 * the pools serve). Argument {@code raw}: the ONNX Runtime Java API; {@code djl}: through DJL's
 * OnnxRuntime engine.
 */
public final class OrtSession {

    public static void main(String[] args) throws Exception {
        Path model = Path.of("add.onnx");
        Files.write(model, OnnxModels.add(2, 3));
        float[] a = {1, 2, 3, 4, 5, 6};
        float[] b = {10, 20, 30, 40, 50, 60};
        if (args[0].equals("raw")) {
            raw(model, a, b);
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
                Buffer copy = ta.getBufferRef().orElseThrow();
                Probe.print("pooled-input", Probe.pooled(copy));
                try (Result r = session.run(Map.of("A", ta, "B", tb))) {
                    float[][] y = (float[][]) r.get(0).getValue();
                    Probe.print("result", Arrays.deepToString(y));
                }
                Probe.printUsage("usage-live");
                ta.close();
                tb.close();
                Probe.printUsage("usage-after-close");
            }
        }
    }

    private static void djl(Path model, float[] a, float[] b) throws Exception {
        Criteria<NDList, NDList> criteria = Criteria.builder().setTypes(NDList.class, NDList.class)
                .optEngine("OnnxRuntime").optModelPath(model).optTranslator(new NoopTranslator()).build();
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
