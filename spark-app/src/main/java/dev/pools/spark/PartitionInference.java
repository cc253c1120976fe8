package dev.pools.spark;

import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.inference.Predictor;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Parameter;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.translate.Batchifier;
import ai.djl.translate.TranslateException;
import ai.djl.translate.Translator;
import ai.djl.translate.TranslatorContext;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

/**
 * What one Spark task does in an executor: it builds the network, makes one predictor, and
 * classifies its partition's synthetic rows in batches of 1 to 512, each batch made from a Java
 * array (so each batch asks DJL for direct memory). Everything is seeded: the weights by a fixed
 * seed, the rows by the partition's number, so a partition gives the same classes in any executor,
 * on a retry, with or without the agent.
 */
final class PartitionInference {

    static final int FEATURES = 512;
    static final int CLASSES = 10;
    /** The batch sizes of a partition, rotated by its number so partitions start at different sizes. */
    static final int[] BATCH_SIZES = {1, 7, 32, 128, 512, 64, 3, 256, 16, 384};

    private static final long WEIGHT_SEED = 42;

    private PartitionInference() {}

    /** The task: the partition holds its own number; it gives one element, the class of every row in order. */
    static Iterator<byte[]> classify(Iterator<Integer> partition) throws TranslateException {
        int number = partition.next();
        Engine.getEngine("PyTorch");
        try (Model model = Model.newInstance("spark-mlp", "PyTorch")) {
            model.setBlock(network());
            model.getBlock().initialize(model.getNDManager(), DataType.FLOAT32, new Shape(1, FEATURES));
            setWeights(model);
            try (Predictor<float[], long[]> predictor = model.newPredictor(new Classes())) {
                Random rows = new Random(1000L + number);
                byte[] classes = new byte[rowsPerPartition()];
                int done = 0;
                for (int b = 0; b < BATCH_SIZES.length; b++) {
                    int size = BATCH_SIZES[(number + b) % BATCH_SIZES.length];
                    long[] predicted = predictor.predict(batch(rows, size));
                    for (long c : predicted) {
                        classes[done++] = (byte) c;
                    }
                }
                return List.of(classes).iterator();
            }
        }
    }

    static int rowsPerPartition() {
        int rows = 0;
        for (int size : BATCH_SIZES) {
            rows += size;
        }
        return rows;
    }

    private static SequentialBlock network() {
        return new SequentialBlock()
                .add(Linear.builder().setUnits(256).build())
                .add(Activation::relu)
                .add(Linear.builder().setUnits(128).build())
                .add(Activation::relu)
                .add(Linear.builder().setUnits(CLASSES).build());
    }

    /** Weights from a Java generator, not from the engine's: the same network in every JVM and every task. */
    private static void setWeights(Model model) {
        Random random = new Random(WEIGHT_SEED);
        for (Parameter p : model.getBlock().getParameters().values()) {
            NDArray array = p.getArray();
            Shape shape = array.getShape();
            float scale = (float) (1 / Math.sqrt(shape.get(shape.dimension() - 1)));
            float[] values = new float[Math.toIntExact(array.size())];
            for (int i = 0; i < values.length; i++) {
                values[i] = (random.nextFloat() * 2 - 1) * scale;
            }
            array.set(values);
        }
    }

    /** {@code size} rows of features, row-major: points around one of a few centres, so the classes vary. */
    private static float[] batch(Random random, int size) {
        float[] features = new float[size * FEATURES];
        for (int r = 0; r < size; r++) {
            int centre = random.nextInt(CLASSES);
            for (int f = 0; f < FEATURES; f++) {
                features[r * FEATURES + f] = (float) random.nextGaussian() + ((f % CLASSES) == centre ? 1.5f : 0f);
            }
        }
        return features;
    }

    /** Rows in, the index of the largest logit of each row out. */
    private static final class Classes implements Translator<float[], long[]> {
        @Override
        public NDList processInput(TranslatorContext ctx, float[] features) {
            int rows = features.length / FEATURES;
            return new NDList(ctx.getNDManager().create(features, new Shape(rows, FEATURES)));
        }

        @Override
        public long[] processOutput(TranslatorContext ctx, NDList logits) {
            return logits.singletonOrThrow().argMax(1).toLongArray();
        }

        @Override
        public Batchifier getBatchifier() {
            return null;
        }
    }
}
