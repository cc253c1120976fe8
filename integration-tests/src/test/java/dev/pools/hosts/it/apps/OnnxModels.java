package dev.pools.hosts.it.apps;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

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

        private Message raw(int field, byte[] value) {
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
