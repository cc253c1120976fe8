package dev.pools.hosts.it.apps;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Writes tiny ONNX models by hand (the protobuf wire format of onnx.proto, no library), so tests
 * need no model download.
 */
public final class OnnxModels {

    private static final int FLOAT = 1;

    private OnnxModels() {}

    /** {@code Y = A + B}, float tensors of the given shape; opset 13, IR version 8. */
    public static byte[] add(long... shape) {
        Message graph = new Message()
                .message(
                        1,
                        new Message()
                                .string(1, "A")
                                .string(1, "B")
                                .string(2, "Y")
                                .string(3, "add")
                                .string(4, "Add"))
                .string(2, "add-graph")
                .message(11, valueInfo("A", shape))
                .message(11, valueInfo("B", shape))
                .message(12, valueInfo("Y", shape));
        return new Message()
                .varint(1, 8)
                .string(2, "pools-tests")
                .message(7, graph)
                .message(8, new Message().string(1, "").varint(2, 13))
                .bytes();
    }

    /**
     * A graph with no node whose output is its input {@code A}: ONNX Runtime gives the output the
     * input's memory by reference. Opset 13, IR version 8.
     */
    public static byte[] passThrough(long... shape) {
        Message graph = new Message()
                .string(2, "pass-through-graph")
                .message(11, valueInfo("A", shape))
                .message(12, valueInfo("A", shape));
        return new Message()
                .varint(1, 8)
                .string(2, "pools-tests")
                .message(7, graph)
                .message(8, new Message().string(1, "").varint(2, 13))
                .bytes();
    }

    private static final int INT64 = 7;

    /**
     * A sentence-embedding model: {@code input_ids} (int64, batch x tokens) looked up in a
     * {@code vocab x dim} table (Gather), averaged over the tokens (ReduceMean), then a two-layer
     * projection ({@code dim -> hidden -> dim}, ReLU between); weights seeded, so the outputs are
     * the same on every run. Opset 13, IR version 8.
     */
    public static byte[] embedding(int vocab, int dim, int hidden, long seed) {
        Random random = new Random(seed);
        Message graph = new Message()
                .message(1, node("Gather", List.of("E", "input_ids"), "tokens", null))
                .message(
                        1,
                        node(
                                "ReduceMean",
                                List.of("tokens"),
                                "pooled",
                                new Message().string(1, "axes").varint(20, 7).varint(8, 1)))
                .message(1, node("MatMul", List.of("pooled", "W1"), "h", null))
                .message(1, node("Relu", List.of("h"), "r", null))
                .message(1, node("MatMul", List.of("r", "W2"), "embedding", null))
                .string(2, "embedding-graph")
                .message(5, weights("E", random, vocab, dim))
                .message(5, weights("W1", random, dim, hidden))
                .message(5, weights("W2", random, hidden, dim))
                .message(11, valueInfo("input_ids", INT64, "batch", "tokens"))
                .message(12, valueInfo("embedding", FLOAT, "batch", String.valueOf(dim)));
        return new Message()
                .varint(1, 8)
                .string(2, "pools-tests")
                .message(7, graph)
                .message(8, new Message().string(1, "").varint(2, 13))
                .bytes();
    }

    private static Message node(String op, List<String> inputs, String output, Message attribute) {
        Message n = new Message();
        for (String in : inputs) {
            n.string(1, in);
        }
        n.string(2, output)
                .string(3, op.toLowerCase(Locale.ROOT) + "-" + output)
                .string(4, op);
        if (attribute != null) {
            n.message(5, attribute);
            if (op.equals("ReduceMean")) {
                n.message(5, new Message().string(1, "keepdims").varint(20, 2).varint(3, 0));
            }
        }
        return n;
    }

    /** A float tensor of values uniform in [-0.1, 0.1), as raw little-endian bytes. */
    private static Message weights(String name, Random random, int rows, int cols) {
        ByteBuffer data = ByteBuffer.allocate(rows * cols * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < rows * cols; i++) {
            data.putFloat((random.nextFloat() - 0.5f) / 5);
        }
        return new Message()
                .varint(1, rows)
                .varint(1, cols)
                .varint(2, FLOAT)
                .string(8, name)
                .raw(9, data.array());
    }

    /** A tensor's name, element type and shape; a dimension is a number or a symbolic name. */
    private static Message valueInfo(String name, int type, String... dims) {
        Message shape = new Message();
        for (String d : dims) {
            shape.message(
                    1,
                    d.chars().allMatch(Character::isDigit)
                            ? new Message().varint(1, Long.parseLong(d))
                            : new Message().string(2, d));
        }
        Message tensor = new Message().varint(1, type).message(2, shape);
        return new Message().string(1, name).message(2, new Message().message(1, tensor));
    }

    private static Message valueInfo(String name, long... shape) {
        Message dims = new Message();
        for (long d : shape) {
            dims.message(1, new Message().varint(1, d));
        }
        Message tensor = new Message().varint(1, FLOAT).message(2, dims);
        return new Message().string(1, name).message(2, new Message().message(1, tensor));
    }

    /** A protobuf message under construction: fields appended in order. */
    private static final class Message {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Message varint(int field, long value) {
            tag(field, 0);
            writeVarint(value);
            return this;
        }

        Message string(int field, String value) {
            return raw(field, value.getBytes(StandardCharsets.UTF_8));
        }

        Message message(int field, Message value) {
            return raw(field, value.bytes());
        }

        Message raw(int field, byte[] value) {
            tag(field, 2);
            writeVarint(value.length);
            out.writeBytes(value);
            return this;
        }

        private void tag(int field, int wireType) {
            writeVarint(((long) field << 3) | wireType);
        }

        private void writeVarint(long v) {
            while ((v & ~0x7FL) != 0) {
                out.write((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            out.write((int) v);
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
